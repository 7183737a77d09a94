"""Write-path defence: what may become a memory that is later put into a prompt.

Every fact passes :func:`screen` before it is stored. Invisible characters are
stripped; secrets (API keys, tokens, passwords) and prompt-injection attempts
are flagged, and a flagged fact is stored *quarantined*: visible to operators,
never injected into a context. Nothing is silently dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

# Zero-width and bidi controls (category Cf) and C0/C1 controls other than
# newline and tab are invisible to a reader but not to a model.
_KEEP_CONTROLS = {"\n", "\t"}

# Natural-language secrets that pattern detectors miss.
_SECRET_PHRASES = [
    re.compile(r"\b(password|passwd|passcode|passphrase|pin code|pin)\s*(is|was|:|=)\s*\S{3,}", re.I),
    re.compile(
        r"\b(api[ _-]?key|secret[ _-]?key|access[ _-]?token|auth[ _-]?token|token|secret)\s*(is|:|=)\s*[\"']?"
        r"[A-Za-z0-9_\-./+=]{12,}",
        re.I,
    ),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
]

_INJECTION = [
    re.compile(
        r"\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|any|your)\b.{0,40}"
        r"\b(instructions?|prompts?|rules|directions|guidelines)",
        re.I | re.S,
    ),
    re.compile(
        r"\b(you are now|from now on,? you (are|will|must)|act as|pretend to be)\b.{0,60}"
        r"\b(unrestricted|jailbroken|dan|developer mode|no (rules|restrictions|filters))",
        re.I | re.S,
    ),
    re.compile(
        r"\b(reveal|print|show|repeat|leak)\b.{0,30}\b(system prompt|hidden instructions|your instructions)",
        re.I | re.S,
    ),
    re.compile(r"<\|?(im_start|im_end|system|endoftext)\|?>", re.I),
    re.compile(r"(^|\n)\s*(###\s*)?(system|assistant)\s*:", re.I),
    re.compile(r"\bnew (system )?instructions?\s*:", re.I),
    re.compile(r"</?untrusted", re.I),
]


@dataclass
class Screening:
    text: str
    flags: list[str] = field(default_factory=list)

    @property
    def quarantined(self) -> bool:
        return bool(self.flags)

    @property
    def reason(self) -> str:
        return "; ".join(self.flags)[:300]


# In ASCII text the only invisible characters are the control characters.
_ASCII_CONTROLS = {code: None for code in [*range(32), 127] if chr(code) not in _KEEP_CONTROLS}


def strip_invisible(text: str) -> str:
    if text.isascii():
        cleaned = text.translate(_ASCII_CONTROLS)
    else:
        cleaned = "".join(
            ch for ch in text if ch in _KEEP_CONTROLS or unicodedata.category(ch) not in {"Cf", "Cc", "Co", "Cs"}
        )
    return re.sub(r"[ \u00a0]{2,}", " ", cleaned).strip()


@lru_cache(maxsize=1)
def _secret_plugins() -> dict:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    # Entropy detectors flag ordinary words; the IP detector flags addresses, not secrets.
    names = [
        cls.__name__
        for secret_type, cls in get_mapping_from_secret_type_to_class().items()
        if "High Entropy" not in secret_type and cls.__name__ != "IPPublicDetector"
    ]
    return {"plugins_used": [{"name": name} for name in names]}


# Every detector in use needs one of these to fire: a token of 10+ characters with a digit or two capitals
# (keys, tokens), a keyword (password=…, api_key, secret), a URL with credentials, or a key block. A line
# with none of them (most chat) skips the two dozen detectors.
_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.:]{10,}")
_SECRET_KEYWORDS = re.compile(
    r"pass|pwd|secret|token|key|auth|cred|bearer|private|://|begin|contrase|live_|xox|sk-|ghp_|glpat|npm_|pypi-|sq0c",
    re.I,
)


def _may_hold_secret(line: str) -> bool:
    if _SECRET_KEYWORDS.search(line):
        return True
    return any(
        any(ch.isdigit() for ch in token) or sum(ch.isupper() for ch in token) >= 2 for token in _TOKEN.findall(line)
    )


def _find_secrets(text: str) -> list[str]:
    """Kinds of secret in ``text``; call inside the detect-secrets settings context."""
    from detect_secrets.core.scan import scan_line

    found: set[str] = set()
    for line in text.splitlines() or [text]:
        if _may_hold_secret(line):
            found.update(secret.type for secret in scan_line(line))
    found.update("Secret phrase" for pattern in _SECRET_PHRASES if pattern.search(text))
    return sorted(found)


def find_secrets(text: str) -> list[str]:
    """Names of the kinds of secret found in ``text``."""
    from detect_secrets.settings import transient_settings

    with transient_settings(_secret_plugins()):
        return _find_secrets(text)


def find_injection(text: str) -> bool:
    return any(pattern.search(text) for pattern in _INJECTION)


def screen_many(texts: list[str]) -> list[Screening]:
    """Clean each text and flag what must not reach a prompt (one detector set-up for the batch)."""
    from detect_secrets.settings import transient_settings

    results = []
    with transient_settings(_secret_plugins()):
        for text in texts:
            result = Screening(text=strip_invisible(text))
            secrets = _find_secrets(result.text)
            if secrets:
                result.flags.append("possible secret: " + ", ".join(secrets))
            if find_injection(result.text):
                result.flags.append("possible prompt injection")
            results.append(result)
    return results


def screen(text: str) -> Screening:
    """Clean ``text`` and flag what must not reach a prompt."""
    return screen_many([text])[0]
