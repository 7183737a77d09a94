"""KB folders move from ``<data dir>/<bot name>/<kb name>/`` to ``<data dir>/bot_<bot id>/kb_<kb id>/``.

Names could be changed by an operator and then taken by another bot, which then read the first one's files; ids
cannot. Each folder is moved whole with one rename within the data dir, so every path kept relative to it (a
document's ``metadata["file"]``, an inbox job's target) still holds, and the next sync finds every file where its
document says it is: nothing is marked deleted or indexed again. Run it with the workers stopped (``manage.py
serve`` migrates before it starts them). Running it again is harmless: a folder already moved is left alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings
from django.db import migrations


def _by_name(data: Path, kb) -> Path:
    return data / kb.bot.name / kb.name


def _by_id(data: Path, kb) -> Path:
    return data / f"bot_{kb.bot_id}" / f"kb_{kb.pk}"


def _holds_files(folder: Path) -> bool:
    return any(not path.is_dir() for path in folder.rglob("*"))


def _move(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` if there is a source. A target of empty folders only (made by a process of
    the new release started before the migration) gives way; one holding files stops the migration, naming both."""
    if not source.is_dir():
        return
    if target.exists():
        if _holds_files(target):
            raise RuntimeError(
                f"both {source} and {target} hold files of the same knowledge base: merge them into {source}, "
                "remove the other one and migrate again"
            )
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    source.rename(target)
    try:
        source.parent.rmdir()  # the old bot folder, once its last KB has left it
    except OSError:
        pass  # it still holds other folders


def _move_all(apps, place_from, place_to) -> None:
    data = Path(settings.KBSITE_DATA_DIR)
    KnowledgeBase = apps.get_model("kbsite", "KnowledgeBase")
    for kb in KnowledgeBase.objects.select_related("bot").order_by("pk"):
        _move(place_from(data, kb), place_to(data, kb))


def folders_by_id(apps, schema_editor) -> None:
    """Each KB's folder from where its names put it to where its ids put it."""
    _move_all(apps, _by_name, _by_id)


def folders_by_name(apps, schema_editor) -> None:
    """Back: each KB's folder to where its present names put it (the layout of the release before)."""
    _move_all(apps, _by_id, _by_name)


class Migration(migrations.Migration):
    dependencies = [
        ("kbsite", "0009_api_key_read_only"),
    ]

    operations = [
        migrations.RunPython(folders_by_id, folders_by_name, elidable=False),
    ]
