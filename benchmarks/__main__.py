"""`python -m benchmarks [ingest ...]`: run the named benchmarks (default: all) and print their figures."""

from __future__ import annotations

import sys

BENCHMARKS = ["ingest", "recall", "latency"]


def main(argv: list[str]) -> None:
    names = argv or BENCHMARKS
    for name in names:
        if name not in BENCHMARKS:
            raise SystemExit(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
    for name in names:
        print(f"== {name} ==", flush=True)
        module = __import__(f"benchmarks.{name}", fromlist=["run"])
        module.run()


if __name__ == "__main__":
    main(sys.argv[1:])
