"""French: its words, dates, statements, the subjects of vague questions and relations are read offline; it has no
reader of changes of its own yet (an ended thing is found by meaning); searched in full text under PostgreSQL's own
configuration with accents folded."""

from kbsite.languages.base import changes  # noqa: F401 - the reader it does not have yet
from kbsite.languages.fr import concepts, relations, statements, words  # noqa: F401 - the language's modules

CODE = "fr"
NAME = "French"
