"""Languages: a KB's language setting and the languages it holds; the text-search configurations of each language
(``kbsite_<name>``: PostgreSQL's own, with ``unaccent`` folding accents) and ``kbsite_fts_config(code)``, which
gives a row's configuration from its language code (memories' and knowledge's search vectors use it)."""

import django.contrib.postgres.fields
from django.db import migrations, models

# As kbsite.languages.FTS_CONFIGS was when this migration was written: a later language needs a migration of its own.
FTS_CONFIGS = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian", "ne": "nepali",
    "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
DEFAULT = "english"  # a row written before languages were told
CHOICES = [
    ("auto", "Auto: each text's own, told as it comes in"),
    ("ar", "Arabic"),
    ("ca", "Catalan"),
    ("cs", "Czech"),
    ("da", "Danish"),
    ("de", "German"),
    ("el", "Greek"),
    ("en", "English"),
    ("es", "Spanish"),
    ("eu", "Basque"),
    ("fi", "Finnish"),
    ("fr", "French"),
    ("gl", "Galician"),
    ("he", "Hebrew"),
    ("hi", "Hindi"),
    ("id", "Indonesian"),
    ("it", "Italian"),
    ("ja", "Japanese"),
    ("ko", "Korean"),
    ("nl", "Dutch"),
    ("no", "Norwegian"),
    ("pl", "Polish"),
    ("pt", "Portuguese"),
    ("ro", "Romanian"),
    ("ru", "Russian"),
    ("sv", "Swedish"),
    ("tr", "Turkish"),
    ("uk", "Ukrainian"),
    ("vi", "Vietnamese"),
    ("zh", "Simplified Chinese"),
]


def configs_create(apps, schema_editor):
    execute = schema_editor.execute
    execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace "
            "WHERE n.nspname = 'pg_catalog'"
        )
        present = {row[0] for row in cursor.fetchall()}
        cursor.execute("SELECT dictname FROM pg_ts_dict")
        dictionaries = {row[0] for row in cursor.fetchall()}
    made = {}
    for name in sorted({*FTS_CONFIGS.values(), "simple"}):
        if name not in present:
            continue  # an older server without this language: its texts are searched as simple
        stem = f"{name}_stem" if f"{name}_stem" in dictionaries else "simple"
        execute(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS kbsite_{name}")
        execute(f"CREATE TEXT SEARCH CONFIGURATION kbsite_{name} (COPY = pg_catalog.{name})")
        execute(
            f"ALTER TEXT SEARCH CONFIGURATION kbsite_{name} ALTER MAPPING FOR hword, hword_part, word WITH unaccent, {stem}"
        )
        made[name] = f"kbsite_{name}"
    cases = " ".join(
        f"WHEN '{code}' THEN '{made[name]}'::regconfig" for code, name in sorted(FTS_CONFIGS.items()) if name in made
    )
    execute(
        "CREATE OR REPLACE FUNCTION kbsite_fts_config(code text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE "
        f"AS $$ SELECT CASE code WHEN '' THEN '{made[DEFAULT]}'::regconfig {cases} "
        "ELSE 'kbsite_simple'::regconfig END $$"
    )


def configs_drop(apps, schema_editor):
    schema_editor.execute("DROP FUNCTION IF EXISTS kbsite_fts_config(text)")
    for name in sorted({*FTS_CONFIGS.values(), "simple"}):
        schema_editor.execute(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS kbsite_{name}")


class Migration(migrations.Migration):
    dependencies = [
        ("kbsite", "0017_webhook_delivery_finished_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="knowledgebase",
            name="language",
            field=models.CharField(
                choices=CHOICES,
                default="auto",
                help_text="The language of what the KB holds: auto (each text's own, told as it comes in) or a code "
                "(es, de…) that every text is taken to be in.",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="knowledgebase",
            name="languages",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=8),
                blank=True,
                default=list,
                editable=False,
                help_text="The languages its texts are in, as told; a question is searched in full text under each.",
                size=None,
            ),
        ),
        migrations.RunPython(configs_create, configs_drop),
    ]
