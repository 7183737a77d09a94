"""The review queue: every supersession and every open conflict between two live facts, for an operator to accept,
revert or keep both. ``records`` makes them as supersessions happen and conflicts are found; ``services`` settles
them (the API and the admin act through these)."""
