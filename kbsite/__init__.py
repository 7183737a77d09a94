"""kbsite: the project package and its base app (bots, API keys, knowledge bases, job runs, and the shared plumbing)."""
