"""Text the database and the disk can hold: no NUL characters and no lone surrogates, in any string that comes in.

PostgreSQL refuses NUL in text, and a lone surrogate (valid in JSON's ``\\ud800`` escapes, not in UTF-8) cannot be
encoded at all. Both are refused where input enters (the API's parsers and URL parts, tool arguments, files)
with a message that says where, so that they never reach a query or a file half-written.
"""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
MAX_DEPTH = 64  # nesting of lists and objects in a request body


class UnstorableText(ValueError):
    """Input holds text that cannot be stored; the message says where and why."""


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return f"holds a NUL character (\\u0000) at position {found.start()}, which cannot be stored"
    return f"holds a lone surrogate (\\u{ord(found.group()):04x}) at position {found.start()}, which is not valid text"


def text_check(value, where: str = "") -> None:
    """Raise UnstorableText for the first string in ``value`` (keys included, nested lists and dicts walked, at
    most MAX_DEPTH deep) that cannot be stored, naming its place (``arguments.entities[0]``)."""
    stack = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UnstorableText(f"{where or 'the body'} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, str):
            reason = unstorable(item)
            if reason:
                raise UnstorableText(f"{path or 'the text'} {reason}")
        elif isinstance(item, dict):
            for key, child in item.items():
                key_path = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and (reason := unstorable(key)):
                    raise UnstorableText(f"a key of {path or 'the body'} {reason}")
                stack.append((child, key_path, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
