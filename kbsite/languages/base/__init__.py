"""What a language reads offline before it has readers of its own: no attribute stated, no change said. Its texts
are still told, searched in full text under its own configuration, and read for their words by its ``words``; what
came after what is found by meaning (the context block shows later statements beside earlier ones)."""
