"""`python -m benchmarks [ingest ...] [--mode offline|llm]`: run the named benchmarks (default: all but scale_out and
soak), print figures. Other options (`soak --minutes 5 --external`, `truth --cases heldout`) are left for the
benchmark to read.

``recall`` and ``context`` measure two modes of extraction side by side: ``offline`` (the heuristic extractor) and
``llm`` (the product's LLM path, its LLM replaying LoCoMo's LLM-written observations: benchmarks/replay_llm.py).
``--mode llm`` (or BENCH_MODES=llm) runs one of them only; a run of one mode takes a while on 2 cores.
"""

from __future__ import annotations

import os
import sys

BENCHMARKS = [
    "ingest",
    "recall",
    "latency",
    "users",
    "users_scale",
    "proxy",
    "context",
    "dashboard",
    "truth",
    "languages",
    "fresh",
    "webhooks",
    "usage",
]
# Run only when named: the scale-out run needs Debian's PostgreSQL with pgvector (`make scale-out` installs it);
# the soak runs for 10 minutes; growth loads 4 million memories and a million turns; ask_weights fits offline ask's
# ranking on eleven development sets (about 15 minutes); healing loads 300,000 memories; recall_process reads what
# recall left.
ON_REQUEST = ["scale_out", "soak", "growth", "ask_weights", "healing", "recall_process"]
# A benchmark's own options that take a value (read by the benchmark from sys.argv).
VALUED_OPTIONS = {"--minutes", "--cases"}


def main(argv: list[str]) -> None:
    names, args = [], iter(argv)
    for arg in args:
        if arg == "--mode":
            os.environ["BENCH_MODES"] = next(args, "")
        elif arg.startswith("--mode="):
            os.environ["BENCH_MODES"] = arg.split("=", 1)[1]
        elif arg in VALUED_OPTIONS:
            next(args, None)
        elif not arg.startswith("--"):
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
