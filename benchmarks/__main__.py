"""`python -m benchmarks [ingest ...]`: run the named benchmarks (default: all but scale_out), print figures."""

from __future__ import annotations

import sys

BENCHMARKS = ["ingest", "recall", "latency", "users", "users_scale", "proxy", "context", "dashboard"]
# Run only when named: the scale-out run needs Debian's PostgreSQL with pgvector (`make scale-out` installs it).
ON_REQUEST = ["scale_out"]


def main(argv: list[str]) -> None:
    names = argv or BENCHMARKS
    for name in names:
        if name not in BENCHMARKS + ON_REQUEST:
            raise SystemExit(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS + ON_REQUEST)}")
    for name in names:
        print(f"== {name} ==", flush=True)
        module = __import__(f"benchmarks.{name}", fromlist=["run"])
        module.run()


if __name__ == "__main__":
    main(sys.argv[1:])
