"""The AI plumbing both domain apps use.

The LLM client, embeddings, vectors, splitting, the write-path defence, full- text queries, and rank fusion with
budget packing.
"""
