"""French: its words, dates, the subjects of vague questions and relations are read offline; it has no readers of
statements or changes of its own yet (what came after what is found by meaning); searched in full text under
PostgreSQL's own configuration with accents folded."""

from kbsite.languages.base import changes, statements  # noqa: F401 - the readers it does not have yet
from kbsite.languages.fr import concepts, relations, words  # noqa: F401 - the language's modules, read as its attributes

CODE = "fr"
NAME = "French"
