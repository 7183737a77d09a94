"""A word's lemma in a language, by simplemma (its dictionaries ship in the wheel, one a language): "wohnt", "wohne"
and "gewohnt" are "wohnen", "vivía" "vivir", "cães" "cão", "lived" "live". A word of a language simplemma does not
read, or one it does not know, is itself. A process loads a language's dictionary on its first word of it (0.3 s for
English, 1-1.6 s for Spanish, German or Portuguese): not at a web process's start, where every language's would cost
each process 4.5 s of CPU."""

from __future__ import annotations

from functools import lru_cache

import simplemma

# The words whose lemmas are kept, the most (a block's statements and questions repeat theirs).
CACHED = 100_000


@lru_cache(maxsize=CACHED)
def lemma(word: str, code: str) -> str:
    """``word``'s lemma in the language ``code`` ("es"), lower-cased; the word itself where none is told."""
    try:
        # low_memory: about 12 MB a language's dictionary in each process, not 100, at the same speed (2 µs a word).
        return simplemma.lemmatize(word, lang=code, low_memory=True).lower()
    except ValueError:  # a language simplemma does not read
        return word
