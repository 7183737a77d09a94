"""The knowledge API: a KB's documents and their search."""
