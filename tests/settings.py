"""The product's settings for the test run, after starting (or reusing) the embedded database as a process does."""

import os

from kbsite import boot

boot.prepare()

from kbsite.settings import *  # noqa: E402, F403

# Two test runs at once on one server (a developer's quick loop beside a full run) each take a database of their own.
if os.environ.get("KBSITE_TEST_DB"):
    DATABASES["default"]["TEST"] = {"NAME": os.environ["KBSITE_TEST_DB"]}  # noqa: F405

# A fast password hasher (Django's advice for tests): an admin or an operator is made in a hundred tests, and
# PBKDF2's million rounds took a third of a second each time. The login itself is the same.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The bots the tests make may send a schemathesis run or the auth matrix through one key: a limit of a million a
# minute (every request still goes through the bucket). The rate limits' own tests set a low one on their bot.
BOT_REQUESTS_PER_MINUTE = 1_000_000
