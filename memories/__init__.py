"""The memory domain: conversations become facts, curated and recalled into a bot's context."""
