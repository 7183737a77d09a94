"""English, read offline in full: statements of one-valued attributes, changes of state, the subjects of vague
questions, relations and dates; searched in full text as ``english``."""

from kbsite.languages.en import (  # noqa: F401 - the language's modules, read as its attributes
    changes,
    concepts,
    relations,
    statements,
    words,
)

CODE = "en"
NAME = "English"
