"""Full-text search shared by memories and document chunks: the text-search configuration and the query words."""

from __future__ import annotations

import re

# Full-text config for memories and chunks. 'english' stems and drops the
# usual stopwords; the query side removes the memory-specific ones (seed 001).
FTS_CONFIG = "english"

# Seed 001: words in almost every fact, or carrying no retrieval signal, never go into the text query.
STOPWORDS = frozenset(
    """the a an of to in on at for and or is are was were be been being do does did how what where when which who
    whom whose why this that these those it its use uses used user users project projects right now
    i me my you your he she his her we our they them their""".split()
)
WORD = re.compile(r"[\w][\w'\-]*", re.UNICODE)


def text_query(query: str) -> str:
    """The query's informative words joined with OR, for websearch_to_tsquery (any word may match)."""
    words = [w.lower().strip("'-") for w in WORD.findall(query)]
    kept = [w for w in words if w and w not in STOPWORDS and len(w) > 1]
    seen: list[str] = []
    for w in kept:
        if w not in seen:
            seen.append(w)
    return " or ".join(seen[:32])
