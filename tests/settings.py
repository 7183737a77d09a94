"""The product's settings for the test run, after starting (or reusing) the embedded database as a process does."""

from kbsite import boot

boot.prepare()

from kbsite.settings import *  # noqa: E402, F403
