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

# Prompt injections are looked for in three views of the text (see _views): normalised (NFKC, case-folded, look-alike
# letters mapped to Latin), the same with leetspeak undone, and only its letters (spacing and punctuation between
# letters removed). Each pattern names an act (ignore, reveal, become) and what it acts on (instructions, the
# system prompt, a mode): the words alone ("previous instructions", "developer mode") are not an injection.
_IGNORE = (
    r"ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|neglect|set aside|pay no attention to|"
    r"stop following|(?:do not|don't|dont) follow"
)
_EARLIER = r"previous|prior|above|earlier|preceding|former|original|all|any|your|these|those|the system'?s?"
_ORDERS = (
    r"instructions?|prompts?|rules|directions|guidelines|guidance|commands|orders|programming|constraints|"
    r"restrictions"
)
_SECRET_PROMPT = (
    r"system prompt|(?:hidden|initial|original|secret|system|developer) (?:prompt|instructions|message)|"
    r"everything above|the text above|(?:the )?instructions above"
)
_REVEAL = r"reveal|print|show|repeat|leak|output|display|tell me|give me|dump|recite|echo|write out"
_INJECTION = [
    re.compile(rf"\b(?:{_IGNORE})\b.{{0,50}}\b(?:{_EARLIER})\b.{{0,50}}\b(?:{_ORDERS})\b", re.S),
    re.compile(
        rf"\b(?:{_IGNORE})\b.{{0,30}}\b(?:everything|anything|all|what(?:ever)?)\b.{{0,20}}"
        r"(?:\byou(?:'ve| have)? (?:were|been) (?:told|given|taught)|\babove\b|\bbefore this\b|\bso far\b)",
        re.S,
    ),
    re.compile(
        rf"\b(?:{_IGNORE})\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:above|previous|prior|preceding)\b"
        r"(?:\s+(?:text|message|content|lines?))?\s*(?:and|then|,|;)"
    ),
    re.compile(
        rf"\b(?:{_IGNORE})\s+(?:the\s+|your\s+|all\s+|any\s+)*(?:{_ORDERS})\b.{{0,30}}"
        r"(?:\byou(?:'ve| have)? (?:were|been) (?:given|told)|\bgiven to you\b|\babove\b|\bso far\b)",
        re.S,
    ),
    re.compile(
        r"\byour\s+(?:new|real|true|actual|updated|only)\s+(?:instructions?|task|orders|role|goal|objective|"
        r"directive|mission|purpose)\s*(?:is|are|:|=)"
    ),
    re.compile(r"\bnew (?:system )?(?:instructions?|rules)\s*:"),
    re.compile(
        r"\bfrom now on\b.{0,40}\b(?:you|ai|assistant|bot)\b.{0,40}\b(?:will|must|shall|are|should)\b.{0,60}"
        r"\b(?:answer|respond|reply|act|ignore|obey|comply|without)\b",
        re.S,
    ),
    re.compile(r"\byou are (?:no longer|not) (?:bound|restricted|limited|required|obliged)\b"),
    re.compile(
        r"\b(?:you are now|from now on,? you (?:are|will|must)|act as|pretend to be|roleplay as|behave like)\b.{0,60}"
        r"\b(?:unrestricted|unfiltered|uncensored|jailbroken|dan|developer mode|evil|no (?:rules|restrictions|"
        r"filters|limits))",
        re.S,
    ),
    re.compile(
        r"\b(?:enable|enter|activate|switch to|turn on)\b.{0,20}\b(?:developer|god|jailbreak|dan|"
        r"unrestricted|debug) mode\b"
    ),
    re.compile(
        r"\b(?:disable|turn off|remove|ignore|bypass)\b.{0,30}\b(?:safety|content|moderation) "
        r"(?:filters?|guidelines|rules|checks|settings)\b"
    ),
    re.compile(r"\bdo anything now\b"),
    re.compile(rf"\b(?:{_REVEAL})\b.{{0,40}}\b(?:{_SECRET_PROMPT})", re.S),
    re.compile(rf"\b(?:{_SECRET_PROMPT})\b.{{0,40}}\b(?:{_REVEAL})\b", re.S),
    re.compile(
        r"\b(?:send|email|forward|post|upload|leak|exfiltrate|share)\b.{0,40}\b(?:api keys?|passwords?|"
        r"credentials|secrets?|tokens?|system prompt)\b.{0,40}\b(?:to|at)\s+(?:\S+@\S+|https?://)",
        re.S,
    ),
    re.compile(r"<\|?(?:im_start|im_end|system|endoftext)\|?>"),
    re.compile(r"\[/?inst\]|<</?sys>>|###\s*(?:system|instruction)"),
    re.compile(
        r"(?:^|\n)\s*(?:system|assistant|user)\s*:\s*(?:you\b|your\b|ignore|the user|from now|new\b|sure\b|"
        r"as an ai)"
    ),
    re.compile(r"</?untrusted"),
]
# Over the letters alone: spaced-out or dotted words ("i g n o r e", "i.g.n.o.r.e") read as one.
_INJECTION_LETTERS = [
    re.compile(
        r"(?:ignore|disregard|forget|override|bypass)(?:all|any|the|your|every|of|my)*"
        r"(?:previous|prior|above|earlier|preceding|former|system|original)+"
        r"(?:instructions?|prompts?|rules|directions|guidelines|commands)"
    ),
    re.compile(
        r"(?:reveal|print|show|repeat|leak|output)(?:me)?(?:your|the)(?:system|hidden|initial|original|secret)"
        r"(?:prompt|instructions)"
    ),
]
# Letters that look like Latin ones (Cyrillic, Greek), read as the Latin letter.
_LOOK_ALIKES = str.maketrans("аеорсухіјѕԁһӏкмтвнαεικνοτυρχ", "aeopcyxijsdhlkmtbhaeikvotupx")
_LEET = str.maketrans("013457@$!|", "oieastasii")


def _views(text: str) -> tuple[str, str, str]:
    """The text normalised, with leetspeak undone, and reduced to its letters."""
    if text.isascii():  # no full-width or look-alike letters to undo
        normal = text.lower()
    else:
        normal = unicodedata.normalize("NFKC", text).casefold().translate(_LOOK_ALIKES)
    leet = normal.translate(_LEET)
    return normal, leet, re.sub(r"[^a-z]", "", leet)


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
    """Whether ``text`` tries to give the model instructions, however it is spelled."""
    normal, leet, letters = _views(text)
    views = (normal,) if leet == normal else (normal, leet)
    if any(pattern.search(view) for pattern in _INJECTION for view in views):
        return True
    return any(pattern.search(letters) for pattern in _INJECTION_LETTERS)


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
