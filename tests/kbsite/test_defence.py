"""Write-path defence: the secret detectors still fire behind the cheap pre-check that spares ordinary chat."""

from __future__ import annotations

import pytest

from kbsite.ai.defence import _may_hold_secret, find_secrets, strip_invisible

SECRETS = {
    "AWS Access Key": "my key is AKIAIOSFODNN7EXAMPLE ok",
    "GitHub Token": "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 please",
    "Slack Token": "xoxb-123456789012-1234567890123-abcdefghijklmnop",
    "JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Private Key": "-----BEGIN RSA PRIVATE KEY-----",
    "Basic Auth Credentials": "https://admin:hunter2@example.com/path",
    "Stripe Access Key": "sk_live_abcdefghijklmnopqrstuvwx",
    "SendGrid API Key": "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
    "Secret Keyword": 'password = "CorrectHorse"',
    "Twilio API Key": "AC0123456789abcdef0123456789abcdef",
    "Mailchimp Access Key": "0123456789abcdef0123456789abcdef-us12",
    "Discord Bot Token": "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
}


@pytest.mark.parametrize(("kind", "line"), SECRETS.items())
def test_each_detector_still_fires(kind, line):
    """Every kind of secret passes the pre-check and is named by its detector."""
    assert _may_hold_secret(line)
    assert kind in find_secrets(line)


def test_ordinary_chat_skips_the_detectors():
    """A plain sentence (names, places, dates in words) does not need the detectors, and has no secret."""
    line = "I went to the Alfama district yesterday with Melanie and her kids."
    assert not _may_hold_secret(line)
    assert find_secrets(line) == []


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        (
            "plain\tASCII\nwith\x00 a NUL,\x07 a bell and\x1b an escape\x7f",
            "plain\tASCII\nwith a NUL, a bell and an escape",
        ),
        (
            "Zero\u200bwidth, bidi \u202eoverride\u202c and a soft\u00adhyphen: café",
            "Zerowidth, bidi override and a softhyphen: café",
        ),
    ],
)
def test_invisible_characters_are_stripped_from_ascii_and_unicode_text(text, clean):
    """ASCII text takes a fast path (only control characters can hide there); both paths keep tabs and newlines."""
    assert strip_invisible(text) == clean
