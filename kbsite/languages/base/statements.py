"""No statement of one-valued attributes is read in a language without readers of its own: only the speaker of an
offline fact ("Jonas: …")."""

from __future__ import annotations

import re

from kbsite.languages.reading import Statement, speaker_label

NAME_RUN = re.compile(r"\b[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)*")
NOT_THINGS: frozenset[str] = frozenset()
# Where a statement may be cut, each part stating its own attribute: nowhere, with no reader to say what each states.
PARTS: re.Pattern | None = None


def statement(text: str, own: bool | None = None) -> Statement:
    """The speaker an offline fact names ("Jonas: …"), if any (``own`` tells nothing more here)."""
    speaker, _ = speaker_label(text) or ("", text)
    return Statement(speaker=speaker.lower())
