"""Full-text search shared by memories and document chunks: the words of a query (each row's configuration is its
language's: kbsite.languages.fulltext)."""

from __future__ import annotations

import re

from kbsite import languages

WORD = re.compile(r"[\w][\w'\-]*", re.UNICODE)


def text_query(query: str) -> str:
    """The query's informative words joined with OR, for websearch_to_tsquery (any word may match)."""
    words = [w.lower().strip("'-") for w in WORD.findall(query)]
    stopwords = languages.current().words.QUERY_STOPWORDS
    kept = [w for w in words if w and w not in stopwords and len(w) > 1]
    seen: list[str] = []
    for w in kept:
        if w not in seen:
            seen.append(w)
    return " or ".join(seen[:32])
