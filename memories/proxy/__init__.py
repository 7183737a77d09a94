"""The chat proxy: an OpenAI-compatible endpoint (/openai/v1/: chat completions and the Responses API), and a relay of
Anthropic's Messages API (/anthropic/v1/messages), that adds the memory context to each request, forwards it to the
configured LLM, answers what it answered (streaming too), and records the turns for ingest.

``requests`` reads and checks what a client sent, ``upstream`` talks to the LLM, ``recording`` turns an answered
request into turns of its session (a job), ``views`` are the endpoints; errors are in OpenAI's shape
(``errors``).
"""
