"""The soak's report: requests and errors by status, p50/p95/p99 per endpoint, the turns posted / stored / extracted
with those lost or applied twice, the documents, the jobs, the faults injected, RSS at start and end, the drain."""

from __future__ import annotations

from collections import Counter

TURNS_SQL = """SELECT b.name, s.external_id, m.external_id, m.id <= s.extracted_through,
       (SELECT count(*) FROM memories_memory_source_messages l WHERE l.message_id = m.id),
       (SELECT count(DISTINCT mem.job_run_id) FROM memories_memory_source_messages l
          JOIN memories_memory mem ON mem.id = l.memory_id WHERE l.message_id = m.id)
  FROM memories_message m JOIN memories_session s ON s.id = m.session_id
  JOIN memories_knowledgebase k ON k.id = m.kb_id JOIN memories_bot b ON b.id = k.bot_id"""
DOCUMENTS_SQL = """SELECT b.name, d.slug, d.status FROM knowledge_document d
  JOIN memories_knowledgebase k ON k.id = d.kb_id JOIN memories_bot b ON b.id = k.bot_id"""
JOBS_SQL = """SELECT kind, status, count(*), count(*) FILTER (WHERE retry_at IS NOT NULL)
  FROM memories_jobrun GROUP BY kind, status ORDER BY kind, status"""
RSS_GROWTH_LIMIT = 0.20


def report(*, stack, tally, chaos, llm, load_seconds, drain_seconds, rss_start, rss_end) -> None:
    print(f"\n== soak: {load_seconds / 60:.1f} min of load on {stack.label} ==", flush=True)
    server_errors, unanswered = requests_table(tally, load_seconds)
    turns = turn_figures(stack, tally)
    documents = document_figures(stack, tally)
    gave_up = jobs_table(stack)
    faults(chaos, llm)
    growth = rss_table(rss_start, rss_end)
    drained = f"{drain_seconds:.0f} s" if drain_seconds is not None else "NOT drained"
    print(f"\ntime to drain after the load stopped: {drained}")
    checks = {
        "0 x 5xx from the product": server_errors == 0,
        "0 requests left unanswered (connection errors, cut streams)": unanswered == 0,
        "0 turns lost": turns["lost"] == 0,
        "0 turns applied twice": turns["stored twice"] == 0 and turns["applied twice"] == 0,
        "0 documents lost": documents["lost"] == 0,
        "0 jobs given up": gave_up == 0,
        f"RSS growth under {RSS_GROWTH_LIMIT:.0%}": all(g < RSS_GROWTH_LIMIT for g in growth.values()),
        "drained": drain_seconds is not None,
    }
    print("\n" + "\n".join(f"{'ok  ' if ok else 'FAIL'} {name}" for name, ok in checks.items()), flush=True)


def _percentile(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * share))] if values else 0.0


def requests_table(tally, load_seconds: float) -> tuple[int, int]:
    """Prints each endpoint's requests by status and latency; returns the product's own 5xx (not the failing
    upstream's, which the proxy passes on as they came) and the requests it left without an answer."""
    total = sum(sum(c.values()) for c in tally.statuses.values())
    print(f"\nrequests: {total} in {load_seconds:.0f} s ({total / load_seconds:.1f}/s)")
    print(f"{'endpoint':<38} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  statuses")
    server_errors = unanswered = 0
    for endpoint in sorted(tally.statuses):
        statuses, seconds = tally.statuses[endpoint], tally.seconds[endpoint]
        ms = [_percentile(seconds, share) * 1000 for share in (0.5, 0.95, 0.99)]
        shown = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items(), key=lambda s: str(s[0])))
        print(f"{endpoint:<38} {sum(statuses.values()):>8} {ms[0]:>8.0f} {ms[1]:>8.0f} {ms[2]:>8.0f}  {shown}")
        if "upstream failing" not in endpoint:
            server_errors += sum(n for s, n in statuses.items() if isinstance(s, int) and s >= 500)
        unanswered += sum(n for s, n in statuses.items() if not isinstance(s, int))
    for error in tally.errors:
        print(f"  {error}")
    return server_errors, unanswered


def turn_figures(stack, tally) -> dict:
    """The acknowledged turns against what the database holds after the drain."""
    rows = {}
    stored_twice = 0
    for bot, session, external_id, extracted, memories, runs in stack.query(TURNS_SQL):
        key = (bot, session, external_id)
        stored_twice += key in rows
        rows[key] = (extracted, memories, runs)
    posted = tally.turns
    stored = [rows[t] for t in posted if t in rows]
    extracted = [r for r in stored if r[0]]
    figures = {
        "posted (acknowledged 202)": len(posted),
        "stored": len(stored),
        "extracted (past the session's cursor)": len(extracted),
        "with a memory citing them": sum(1 for r in stored if r[1]),
        "lost (not stored, or not extracted)": len(posted) - len(extracted),
        "stored twice": stored_twice,
        "applied twice (cited by 2+ memories or runs)": sum(1 for r in rows.values() if r[1] > 1 or r[2] > 1),
        "all turns in the database (chats recorded by the proxy too)": len(rows),
    }
    print("\nturns:")
    for name, value in figures.items():
        print(f"  {name:<60} {value:>7}")
    resends = tally.resends
    print(
        f"  re-sent turns: {resends['sent']}, answered as duplicates {resends['answered as duplicates']}, "
        f"accepted again {resends['accepted again']}"
    )
    return {
        "lost": figures["lost (not stored, or not extracted)"],
        "stored twice": stored_twice,
        "applied twice": figures["applied twice (cited by 2+ memories or runs)"],
    }


def document_figures(stack, tally) -> dict:
    statuses = {(bot, slug): status for bot, slug, status in stack.query(DOCUMENTS_SQL)}
    found = Counter(statuses.get(d, "missing") for d in tally.documents)
    lost = sum(n for status, n in found.items() if status != "done")
    print(f"\ndocuments uploaded (acknowledged): {len(tally.documents)}; after the drain: {dict(found)}")
    return {"lost": lost}


def jobs_table(stack) -> int:
    """Prints the job runs by kind and status; returns those that failed and will not be retried by themselves."""
    print("\njob runs (kind, status: count):")
    gave_up = 0
    for kind, status, count, to_retry in stack.query(JOBS_SQL):
        print(f"  {kind:<18} {status:<10} {count:>6}" + (f"  ({to_retry} to be retried)" if to_retry else ""))
        gave_up += (count - to_retry) if status == "failed" else 0
    return gave_up


def faults(chaos, llm) -> None:
    print(f"\nworkers killed (SIGKILL): {len(chaos.kills)}: {'; '.join(chaos.kills) or '-'}")
    print(f"LLM failure stretches: {len(chaos.stretches)}: {'; '.join(chaos.stretches) or '-'}")
    calls = Counter()
    for (kind, weather), n in llm.weather.counts.items():
        calls[f"{kind} {weather}"] += n
    print(f"LLM calls: {', '.join(f'{k}: {n}' for k, n in sorted(calls.items()))}")


def rss_table(start: dict, end: dict) -> dict[str, float]:
    """Prints each role's RSS at start and end, all its processes and those alive throughout (a killed worker's
    replacement starts small); returns the larger of the two growths, a share of the start."""
    columns = f"{'start':>10} {'end':>10} {'growth':>8}"
    print(f"\n{'RSS (MiB)':<10} {'all processes':^30}   {'those alive throughout':^30}")
    print(f"{'':<10} {columns}   {columns}")
    growth = {}
    for role in start:
        before, after = start[role], end[role]
        kept = [pid for pid in before if pid in after]
        totals = [sum(before.values()), sum(after.values())]
        kept_totals = [sum(before[pid] for pid in kept), sum(after[pid] for pid in kept)]
        grew = [(b - a) / a if a else 0.0 for a, b in (totals, kept_totals)]
        growth[role] = max(grew)
        print(
            f"{role:<10} {_mib(totals[0], len(before))} {_mib(totals[1], len(after))} {grew[0]:>+8.1%}   "
            f"{_mib(kept_totals[0], len(kept))} {_mib(kept_totals[1], len(kept))} {grew[1]:>+8.1%}"
        )
    print("  (in brackets: processes; a killed worker's replacement is among all processes at the end)")
    return growth


def _mib(size: int, processes: int) -> str:
    return f"{size / 2**20:>5.0f} ({processes:>2})"
