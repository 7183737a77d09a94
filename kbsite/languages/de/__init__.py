"""German, read offline: statements of one-valued attributes, the subjects of vague questions, relations and dates;
it has no reader of changes of state of its own yet (what came after what is found by attribute and by meaning);
searched in full text under PostgreSQL's own configuration with accents folded."""

from kbsite.languages.base import changes  # noqa: F401 - the reader it does not have yet
from kbsite.languages.de import (  # noqa: F401 - the language's modules, read as its attributes
    concepts,
    relations,
    statements,
    words,
)

CODE = "de"
NAME = "German"
