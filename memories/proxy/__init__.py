"""The chat proxy: an OpenAI-compatible endpoint (/openai/v1/) that adds the memory context to each chat request,
forwards it to the configured LLM, answers what it answered (streaming too), and records the turns for ingest.

``requests`` reads and checks what a client sent, ``upstream`` talks to the LLM, ``recording`` turns an answered
request into turns of its session (a job), ``views`` are the two endpoints; errors are in OpenAI's shape
(``errors``).
"""
