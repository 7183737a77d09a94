"""`python -m benchmarks [ingest ...] [--mode offline|llm]`: run the named benchmarks (default: all but scale_out),
print figures.

``recall`` and ``context`` measure two modes of extraction side by side: ``offline`` (the heuristic extractor) and
``llm`` (the product's LLM path, its LLM replaying LoCoMo's LLM-written observations: benchmarks/replay_llm.py).
``--mode llm`` (or BENCH_MODES=llm) runs one of them only; a run of one mode takes a while on 2 cores.
"""

from __future__ import annotations

import os
import sys

BENCHMARKS = ["ingest", "recall", "latency", "users", "users_scale", "proxy", "context", "dashboard", "truth"]
# Run only when named: the scale-out run needs Debian's PostgreSQL with pgvector (`make scale-out` installs it).
ON_REQUEST = ["scale_out"]


def main(argv: list[str]) -> None:
    names, args = [], iter(argv)
    for arg in args:
        if arg == "--mode":
            os.environ["BENCH_MODES"] = next(args, "")
        elif arg.startswith("--mode="):
            os.environ["BENCH_MODES"] = arg.split("=", 1)[1]
        else:
            names.append(arg)
    names = names or BENCHMARKS
    for name in names:
        if name not in BENCHMARKS + ON_REQUEST:
            raise SystemExit(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS + ON_REQUEST)}")
    for name in names:
        print(f"== {name} ==", flush=True)
        module = __import__(f"benchmarks.{name}", fromlist=["run"])
        module.run()


if __name__ == "__main__":
    main(sys.argv[1:])
