"""Spanish, read offline: statements of one-valued attributes, changes of state, the subjects of vague questions,
relations and dates; searched in full text as ``spanish`` with accents folded."""

from kbsite.languages.es import (  # noqa: F401 - the language's modules, read as its attributes
    changes,
    concepts,
    relations,
    statements,
    words,
)

CODE = "es"
NAME = "Spanish"
