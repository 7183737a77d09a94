"""The AI plumbing both domain apps use: the LLM client, embeddings, vectors, splitting, the write-path defence,
full-text queries, and rank fusion with budget packing."""
