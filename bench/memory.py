"""Memory cache benchmark: recall/engage latency at 10k and 100k entries, store throughput, size, RSS.

The baseline is a plain ``LIKE '%term%'`` scan over the same table in the same run (what a store
without a full-text index does). Run: ``.venv/bin/python -m bench.memory`` (writes the ``memory``
section of BENCHMARKS.md; ``--no-write`` only prints).
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench._proc import status_kib
from bench._sections import publish
from edge_agent.config import parse_settings
from edge_agent.memory import MemoryStore
from edge_agent.memory.model import matched_terms, query_terms
from edge_agent.memory.response_cache import ResponseCache

SEED = 20260131
SIZES = (10_000, 100_000)
QUERY_RUNS = 300
SINGLE_STORES = 300

BOARDS = ["nucleo-f401re", "nucleo-l476rg", "rpi-4b", "rpi-5", "rpi-pico", "esp32-devkitc", "arduino-uno",
          "rpi-zero-2w", "nucleo-f446re"]
PARTS = ["BME280", "SSD1306", "MPU6050", "INA219", "TMP102", "DS3231", "VL53L0X", "PCA9685", "ADS1115", "SHT31",
         "MCP23017", "AT24C32", "BMP388", "LIS3DH", "HX711", "W25Q64", "MAX31855", "TCA9548A", "CCS811", "APDS9960"]
PINS = [f"PA{i}" for i in range(16)] + [f"PB{i}" for i in range(16)] + [f"GPIO{i}" for i in range(28)] + \
       [f"D{i}" for i in range(14)]
TOPICS = ["pull-up resistor", "clock stretching", "address conflict", "brown-out", "humidity drift", "calibration",
          "watchdog reset", "DMA transfer", "chip select", "interrupt latency", "power budget", "firmware update",
          "baud rate", "bus capacitance", "thermal throttling", "sleep current", "oversampling", "level shifter",
          "debounce", "ground loop", "noise floor", "sample rate", "register map", "burst read", "checksum error"]
VERBS = ["measured", "replaced", "configured", "observed", "rewired", "flashed", "tested", "logged", "tuned", "fixed"]
NOUNS = ["pump", "fan", "heater", "valve", "relay", "motor", "display", "buzzer", "camera", "antenna", "battery"]


def corpus(n: int, rng: random.Random, start: int = 0) -> Iterator[dict[str, object]]:
    """Deterministic hardware-notebook entries."""
    now = datetime(2026, 3, 1, tzinfo=UTC)
    for i in range(start, start + n):
        part, board, pin = rng.choice(PARTS), rng.choice(BOARDS), rng.choice(PINS)
        topic, verb, noun = rng.choice(TOPICS), rng.choice(VERBS), rng.choice(NOUNS)
        addr = rng.randrange(0x08, 0x78)
        text = (f"{verb.capitalize()} the {part} on {board} pin {pin} driving the {noun}; noted {topic} "
                f"at 0x{addr:02X}, reading {rng.uniform(0, 100):.2f} after {rng.randrange(1, 500)} cycles. "
                f"Entry {i}.")
        yield {
            "key": f"note-{i}",
            "content": text,
            "category": rng.choice(("core", "daily", "daily", "conversation")),
            "importance": round(rng.random(), 2),
            "timestamp": (now - timedelta(minutes=rng.randrange(0, 60 * 24 * 60))).isoformat(),
            "session_id": f"s{i % 97}",
        }


def queries(rng: random.Random, n: int = 60) -> list[str]:
    """Agent-style questions naming 2-4 things from the vocabulary."""
    out = []
    for _ in range(n):
        parts = [rng.choice(PARTS), rng.choice(TOPICS), rng.choice(NOUNS), rng.choice(BOARDS)]
        rng.shuffle(parts)
        out.append("what do we know about the " + " ".join(parts[: rng.randrange(2, 5)]) + "?")
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


CPU_MS: dict[int, list[float]] = {}


def timed(fn: Callable[[str], object], qs: list[str], runs: int) -> list[float]:
    """Wall-clock milliseconds per call; the process CPU milliseconds go to CPU_MS[id(result list)]."""
    out: list[float] = []
    cpu: list[float] = []
    for i in range(runs):
        q = qs[i % len(qs)]
        c0, t0 = time.process_time(), time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    CPU_MS[id(out)] = cpu
    return out


def like_scan(store: MemoryStore, limit: int = 5) -> Callable[[str], list[tuple[str, str]]]:
    """The naive baseline: OR of LIKE '%term%' over the whole table, newest first."""
    conn = store.new_connection(read_only=True)

    def run(query: str) -> list[tuple[str, str]]:
        terms = query_terms(query)
        where = " OR ".join("content LIKE ?" for _ in terms)
        rows = conn.execute(
            f"SELECT id, content FROM entries WHERE superseded_by IS NULL AND ({where}) "
            "ORDER BY timestamp DESC LIMIT ?", (*(f"%{t}%" for t in terms), limit)).fetchall()
        return [(r[0], r[1]) for r in rows]

    return run


def all_terms_share(results: list[str], query: str) -> float:
    """Share of returned entries containing every query term (a crude precision figure)."""
    terms = query_terms(query)
    if not results:
        return 0.0
    return sum(len(matched_terms(terms, r)) == len(terms) for r in results) / len(results)


def db_bytes(store: MemoryStore) -> int:
    conn = store.new_connection()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return store.db_path.stat().st_size


def _vm_hwm_mib() -> float:
    """This process's peak resident memory (VmHWM) since run() reset it, from its own /proc status."""
    return status_kib().get("VmHWM", float("nan")) / 1024


def _reset_peak() -> None:
    """Start VmHWM afresh (`5` to clear_refs): `python -m bench` runs other benches in this process first."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def run() -> dict[str, object]:
    _reset_peak()
    rng = random.Random(SEED)
    qs = queries(random.Random(SEED + 1))
    settings = parse_settings({"memory": {"min_relevance_score": 0.0, "context_budget_tokens": 600}})
    tmp = Path(tempfile.mkdtemp(prefix="edge-agent-bench-memory-"))
    results: dict[str, object] = {"sizes": {}}
    try:
        store = MemoryStore.open(tmp, settings)
        # Single stores: one transaction (one fsync) each, the reflect path.
        t0, c0 = time.perf_counter(), time.process_time()
        for item in corpus(SINGLE_STORES, rng, start=10_000_000):
            store.store(**item)  # type: ignore[arg-type]
        single = SINGLE_STORES / (time.perf_counter() - t0)
        results["single_store_cpu_us"] = (time.process_time() - c0) / SINGLE_STORES * 1e6
        store.purge_namespace("default")
        results["single_store_per_s"] = single
        have = 0
        for size in SIZES:
            rows = size - have
            t0 = time.perf_counter()
            added = store.store_many(corpus(rows, rng, start=have))
            bulk_s = time.perf_counter() - t0
            assert added == rows, (added, rows)
            have = size
            size_bytes = db_bytes(store)
            recall_ms = timed(lambda q: store.search.recall(q, 5), qs, QUERY_RUNS)
            engage_ms = timed(lambda q: store.search.engage(q, 5), qs, QUERY_RUNS)

            def cold_engage(q: str) -> object:
                store._term_stats.clear()  # no cached document counts: the first query after a write elsewhere
                return store.search.engage(q, 5)

            cold_ms = timed(cold_engage, qs, len(qs))
            like = like_scan(store)
            like_ms = timed(like, qs, max(40, QUERY_RUNS // 5))
            fts_precision = statistics.mean(all_terms_share([e.content for e in store.search.recall(q, 5)], q)
                                            for q in qs)
            like_precision = statistics.mean(all_terms_share([c for _, c in like(q)], q) for q in qs)
            results["sizes"][size] = {  # type: ignore[index]
                "bulk_per_s": rows / bulk_s,
                "bulk_rows": rows,
                "bulk_s": bulk_s,
                "db_bytes": size_bytes,
                "recall_p50": pct(recall_ms, 0.5), "recall_p99": pct(recall_ms, 0.99),
                "engage_p50": pct(engage_ms, 0.5), "engage_p99": pct(engage_ms, 0.99),
                "engage_cpu_p50": pct(CPU_MS[id(engage_ms)], 0.5),
                "like_cpu_p50": pct(CPU_MS[id(like_ms)], 0.5),
                "cold_p50": pct(cold_ms, 0.5), "cold_p99": pct(cold_ms, 0.99),
                "like_p50": pct(like_ms, 0.5), "like_p99": pct(like_ms, 0.99),
                "fts_precision": fts_precision, "like_precision": like_precision,
            }
        store.close()
        results["cache"] = bench_response_cache(tmp / "rc")
        results["peak_rss_mb"] = _vm_hwm_mib()
        results["load"] = os.getloadavg()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def bench_response_cache(folder: Path, n: int = 2000) -> dict[str, float]:
    """Response cache: hot-tier hit, warm-tier hit (fresh process view) and miss latency, in microseconds."""
    folder.mkdir(parents=True, exist_ok=True)
    prompts = [f"what is the I2C address of sensor {i}?" for i in range(n)]
    with ResponseCache(folder / "response_cache.db", hot_entries=256, max_entries=5000) as c:
        for p in prompts:
            c.put("local-1b", "system", p, "It answers at 0x76. " * 10, tokens=40)

    def per_call_us(fn: Callable[[str], object], items: list[str]) -> float:
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        return (time.perf_counter() - t0) / len(items) * 1e6

    with ResponseCache(folder / "response_cache.db", hot_entries=256, max_entries=5000) as c:
        warm = per_call_us(lambda p: c.get("local-1b", "system", p), prompts[:256])  # first touch: warm tier
        hot = per_call_us(lambda p: c.get("local-1b", "system", p), prompts[:256] * 4)  # now in the hot tier
        miss = per_call_us(lambda p: c.get("local-1b", "system", p + "?"), prompts[:256])
    return {"hot_us": hot, "warm_us": warm, "miss_us": miss}


def markdown(r: dict[str, object]) -> str:
    sizes: dict[int, dict[str, float]] = r["sizes"]  # type: ignore[assignment]
    lines = [
        "### Memory cache (`bench/memory.py`)",
        "",
        f"Synthetic hardware-notebook entries (~190 bytes each), {QUERY_RUNS} agent-style queries of 2-4 terms "
        "per size, limit 5, engage budget 600 tokens. \"Cold\" runs drop the cached per-term document counts "
        "(IDF inputs) before every query, as after another process wrote. Baseline: a plain `LIKE '%term%'` "
        "scan (OR of the query terms, newest first) over the same table in the same run. \"All-terms share\" "
        "is the fraction of returned entries that contain every query term (a crude relevance figure).",
        "",
        "| entries | engage p50 / p99 (ms) | engage CPU p50 (ms) | engage, cold IDF cache, p50 / p99 (ms) | "
        "recall p50 / p99 (ms) | LIKE scan p50 / p99 (ms) | LIKE CPU p50 (ms) | engage p50 vs LIKE | "
        "all-terms share: recall / LIKE | target engage p50 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    targets = {10_000: 5.0, 100_000: 20.0}
    for size, s in sizes.items():
        t = targets.get(size)
        verdict = f"<= {t:g} ms: {'met' if s['engage_p50'] <= t else 'MISSED'}" if t else ""
        lines.append(
            f"| {size:,} | {s['engage_p50']:.2f} / {s['engage_p99']:.2f} | {s['engage_cpu_p50']:.2f} | "
            f"{s['cold_p50']:.2f} / {s['cold_p99']:.2f} | {s['recall_p50']:.2f} / "
            f"{s['recall_p99']:.2f} | {s['like_p50']:.2f} / {s['like_p99']:.2f} | {s['like_cpu_p50']:.2f} | "
            f"{s['like_p50'] / s['engage_p50']:.1f}x faster | {s['fts_precision']:.2f} / {s['like_precision']:.2f} "
            f"| {verdict} |"
        )
    first = sizes[SIZES[0]]
    last = sizes[SIZES[-1]]
    lines += [
        "",
        "| figure | value |",
        "|---|---|",
        f"| store, one entry per transaction (FULL sync) | {r['single_store_per_s']:.0f} entries/s |",
        f"| store, one entry per transaction: this process's CPU per call | {r['single_store_cpu_us']:.0f} us |",
        f"| store_many, one transaction (first {SIZES[0]:,}) | {first['bulk_per_s']:.0f} entries/s "
        f"({first['bulk_per_s'] / r['single_store_per_s']:.1f}x one per transaction) |",
        f"| store_many, one transaction (next {int(last['bulk_rows']):,}) | {last['bulk_per_s']:.0f} entries/s "
        f"({last['bulk_per_s'] / r['single_store_per_s']:.1f}x one per transaction) |",
        f"| database size per 10k entries (at {SIZES[0]:,}) | {first['db_bytes'] / (SIZES[0] / 10_000) / 2**20:.2f} "
        "MiB |",
        f"| database size per 10k entries (at {SIZES[-1]:,}) | "
        f"{last['db_bytes'] / (SIZES[-1] / 10_000) / 2**20:.2f} MiB |",
        f"| response cache get: hot-tier hit / warm-tier hit / miss | {r['cache']['hot_us']:.0f} / "  # type: ignore[index]
        f"{r['cache']['warm_us']:.0f} / {r['cache']['miss_us']:.0f} us |",  # type: ignore[index]
        f"| peak RSS of the whole run | {r['peak_rss_mb']:.0f} MiB |",
        f"| load average at the end (2 cores, shared) | {' / '.join(f'{x:.1f}' for x in r['load'])} |",
        "",
        "Notes: the database lives on the temp directory's file system (ext4 here) with `synchronous = FULL`, "
        "so every single-entry store pays one fsync. The LIKE scan reads every row; ranking every full-text "
        "match by bm25 would cost one document-size lookup per match. Recall does neither: it scores a "
        "bounded candidate set (docs/memory-and-sync.md), which is why its latency grows far slower than the "
        "table. Wall-clock figures include waiting for the CPU on a machine shared "
        "with other builds; the CPU column is this process's own CPU time per call. About 40% of the file is "
        "the entries table, 20% the full-text index, the rest secondary indexes (content hash, key, "
        "namespace/category by time). store_many writes 256 entries per multi-row insert (row by row, FTS5 "
        "flushed a one-entry index segment per statement); before that change and the time-ordered ids, the "
        "same rows measured 337 (one per transaction), 3,902 and 3,226 entries/s.",
        "",
    ]
    return "\n".join(lines)





def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md."""
    publish("memory", lambda: markdown(run()), argv)


if __name__ == "__main__":
    main()
