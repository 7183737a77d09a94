"""Full text in each row's language: the database function ``kbsite_fts_config(code)`` gives the text-search
configuration of a language (its own stemmer and stop words, accents folded by ``unaccent``: "Múnich", "Munich"),
and each searched row keeps its ``search_vector`` under the configuration of its ``language``.

The configurations are made by kbsite's migrations (``kbsite_<name>``, copies of PostgreSQL's, with ``unaccent``),
for the languages of :data:`kbsite.languages.FTS_CONFIGS` the server has; any other language is searched as
``kbsite_simple``, and a row of no language told (written before languages were told) as the default's.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery
from django.db.models import F, Func, TextField, Value


class RowConfig(Func):
    """The text-search configuration of a row's ``language``, in a generated column or a query."""

    function = "kbsite_fts_config"
    output_field = TextField()

    def __init__(self, language=None, **extra):
        super().__init__(language if language is not None else F("language"), **extra)


def config_of(code: str | None) -> RowConfig:
    """The configuration of the language ``code``, for a query."""
    return RowConfig(Value(code or ""))


def query_in(text: str, codes: list[str], *, search_type: str = "websearch") -> SearchQuery | None:
    """``text`` as a query under each language's configuration, any of them matching; None without a language."""
    query = None
    for code in dict.fromkeys(codes or [""]):
        one = SearchQuery(text, search_type=search_type, config=config_of(code))
        query = one if query is None else query | one
    return query


def held(kbs) -> list[str]:
    """The languages the KBs hold, by code; ``[""]`` (the default's configuration) for KBs that hold none told."""
    codes = sorted({code for kb in kbs for code in kb.languages})
    return codes or [""]


def term_sql(codes: list[str], function: str = "websearch_to_tsquery") -> str:
    """SQL of one term as a tsquery under each language's configuration, any matching: a ``%s`` pair (code, term)
    per language, as :func:`term_params` gives them."""
    return "(" + " || ".join(f"{function}(kbsite_fts_config(%s), %s)" for _ in codes) + ")"


def term_params(codes: list[str], term: str) -> list[str]:
    return [value for code in codes for value in (code, term)]
