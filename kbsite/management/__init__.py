"""Management commands of the base app."""
