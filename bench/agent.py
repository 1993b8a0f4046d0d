"""Agent benchmark: per-turn overhead without the model, start-up to the first model request, prompt size.

The model is an instant OpenAI-compatible server on loopback (it answers from a script, so its own
time is nil); what is measured is the device's share of a turn. Each figure sits beside a baseline
measured in the same run:

* per-turn overhead (context build + tool dispatch + reflect; time inside the provider call
  subtracted) at 10,000 memory entries and 1,000 datasheet files, for a tool-free turn and for a turn
  with one gpio_write, against the reference runtime's context build on the same data (whole-file
  substring retrieval and a LIKE scan of memory) and against the same turn on the bundled datasheets
  with empty memory; target p50 <= 30 ms;
* time from `edge-agent agent -m` process start to the first provider request (state already
  indexed), against `edge-agent --version` and `python -c pass`;
* prompt size (system + user text and the tool schemas, characters and estimated tokens) in compact
  and full mode, full mode being the baseline.

Run: `.venv/bin/python -m bench.agent` (stores the `agent` section of BENCHMARKS.md; `--no-write`
only prints).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench._sections import publish

REPO = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).with_name("edge-agent"))
MEMORY_ENTRIES = 10_000
TURNS = 60
STARTS = 7


class InstantModel:
    """Answers at once: a gpio_write call when the message asks to blink, else (or after a tool) text."""

    def __init__(self) -> None:
        self.first_request_at: list[float] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                model.first_request_at.append(time.time())
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                last = body["messages"][-1]
                msg: dict[str, Any] = {"role": "assistant", "content": "Done. PA5 is the user LED."}
                if last["role"] == "user" and "blink" in last["content"]:
                    msg = {"role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function",
                        "function": {"name": "gpio_write", "arguments": '{"pin": "red_led", "value": 1}'}}]}
                out = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                                  "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _config(path: Path, url: str, datasheets: Path | None, compact: bool = False) -> Path:
    ds = f'datasheet_dir = "{datasheets}"\n' if datasheets else ""
    # The tool turn measures the write itself, so no operator approval stands in its way.
    path.write_text(f'default_provider = "custom:{url}"\ndefault_model = "bench"\n[autonomy]\nlevel = "full"\n'
                    f"[agent]\ncompact_context = {str(compact).lower()}\n[peripherals]\n{ds}"
                    '[[peripherals.boards]]\nboard = "nucleo-f401re"\ntransport = "sim"\n')
    return path


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def _fill_memory(state: Path, config: Path) -> None:
    from bench.memory import corpus
    from edge_agent.config import load_settings
    from edge_agent.memory import MemoryStore

    with MemoryStore.open(state, load_settings(config)) as store:
        store.store_many(corpus(MEMORY_ENTRIES, random.Random(7)))


def _questions(n: int) -> list[str]:
    from bench.memory import queries

    return queries(random.Random(11), n)


@contextmanager
def _agent(config: Path, state: Path) -> Iterator[Any]:
    from edge_agent.agent.assemble import open_agent
    from edge_agent.config import load_settings

    with open_agent(load_settings(config), state) as agent:
        yield agent


def turn_overhead(config: Path, state: Path) -> dict[str, Any]:
    """Per-turn time outside the provider call, for tool-free turns and one-gpio_write turns (ms)."""
    with _agent(config, state) as agent:
        chain = agent.chain
        inside: list[float] = []
        complete = chain.complete

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return complete(*args, **kwargs)
            finally:
                inside.append(time.perf_counter() - t)

        chain.complete = timed  # type: ignore[method-assign]
        out: dict[str, Any] = {}
        for label, prefix in (("plain", ""), ("tool", "blink the red led, and ")):
            agent.turn(prefix + "warm up the caches")  # first tool call builds the in-process runtime
            totals, builds = [], []
            for q in _questions(TURNS):
                inside.clear()
                t = time.perf_counter()
                agent.turn(prefix + q)
                totals.append((time.perf_counter() - t - sum(inside)) * 1000)
                t = time.perf_counter()
                agent.build(prefix + q)
                builds.append((time.perf_counter() - t) * 1000)
            out[label] = {"p50": statistics.median(totals), "p99": _pct(totals, 99),
                          "build_p50": statistics.median(builds)}
        return out


def reference_context(datasheets: Path, state: Path, config: Path) -> dict[str, float]:
    """The reference loop's context build on the same data: whole-file substring retrieval over every
    datasheet (5 chunks), its pin alias lines, and a LIKE scan of memory (ms)."""
    from bench._revka import RevkaRag
    from bench.memory import like_scan
    from edge_agent.config import load_settings
    from edge_agent.memory import MemoryStore

    rag = RevkaRag.load(datasheets)
    with MemoryStore.open(state, load_settings(config)) as store:
        scan = like_scan(store, limit=5)
        times = []
        for q in _questions(TURNS):
            t = time.perf_counter()
            chunks = rag.retrieve(q, ["nucleo-f401re"], 5)
            hits = scan(q)
            pins = [f"{b}: {a} = pin {p}" for b, m in rag.aliases.items() if b == "nucleo-f401re"
                    for a, p in m.items() if a.replace("_", " ") in q.lower()]
            _ = "".join(c.content for c in chunks) + "".join(c for _, c in hits) + "\n".join(pins)
            times.append((time.perf_counter() - t) * 1000)
    return {"p50": statistics.median(times), "p99": _pct(times, 99)}


def startup(config: Path, state: Path, model: InstantModel) -> dict[str, float]:
    """Seconds from spawning `edge-agent agent -m` to its first provider request (median)."""
    env = {k: v for k, v in os.environ.items() if k not in ("EDGE_AGENT_CONFIG", "NOTIFY_SOCKET")}
    first = []
    for i in range(STARTS):
        model.first_request_at.clear()
        t = time.time()
        subprocess.run([EXE, "--state", str(state), "--config", str(config), "agent", "-m",
                        f"what is the bme280 address, question {i}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        first.append(model.first_request_at[0] - t)

    def wall(cmd: list[str]) -> float:
        times = []
        for _ in range(STARTS):
            t = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    return {"first_request_s": statistics.median(first), "version_s": wall([EXE, "--version"]),
            "openai_s": wall([sys.executable, "-c", "import openai"]),
            "python_s": wall([sys.executable, "-c", "pass"])}


def prompt_sizes(config_full: Path, config_compact: Path, state: Path) -> dict[str, dict[str, float]]:
    from edge_agent.agent.prompt import estimate_tokens
    from edge_agent.agent.tools import specs_chars

    out = {}
    for label, cfg in (("full", config_full), ("compact", config_compact)):
        with _agent(cfg, state) as agent:
            sizes = [agent.build(q).prompt.chars for q in _questions(20)]
            tools = specs_chars(agent.tools)
        mean = statistics.mean(sizes)
        out[label] = {"mean": mean, "max": max(sizes), "tokens": estimate_tokens(int(mean)), "tools": tools,
                      "tool_tokens": estimate_tokens(tools), "n_tools": len(agent.tools)}
    return out


def run() -> dict[str, Any]:
    from bench.rag import generate
    from edge_agent.paths import bundled_datasheets_dir

    with tempfile.TemporaryDirectory(prefix="edge-agent-bench-agent-") as tmp:
        root = Path(tmp)
        datasheets = root / "datasheets"
        generate(datasheets)
        for f in bundled_datasheets_dir().iterdir():  # the configured board's own sheets too
            if f.is_file():
                shutil.copy(f, datasheets / f.name)
        model = InstantModel()
        try:
            big_state, small_state = root / "state-big", root / "state-small"
            full = _config(root / "full.toml", model.url, datasheets)
            compact = _config(root / "compact.toml", model.url, datasheets, compact=True)
            small = _config(root / "small.toml", model.url, None)
            _fill_memory(big_state, full)
            result: dict[str, Any] = {"big": turn_overhead(full, big_state), "small": turn_overhead(small, small_state)}
            result["reference"] = reference_context(datasheets, big_state, full)
            result["prompt"] = prompt_sizes(full, compact, big_state)
            result["startup"] = startup(full, big_state, model)
            result["load"] = os.getloadavg()[0]
            return result
        finally:
            model.close()


def markdown(r: dict[str, Any]) -> str:
    big, small, ref, st = r["big"], r["small"], r["reference"], r["startup"]
    lines = [
        "### On-device agent turn",
        "",
        f"Setup: {MEMORY_ENTRIES:,} memory entries, 1,000 generated datasheet files plus the bundled ones, board "
        "nucleo-f401re on sim://, an OpenAI-compatible model on loopback that answers at once (its time is "
        f"subtracted), default settings (response cache off), {TURNS} different questions per row; "
        f"{os.cpu_count()} CPUs, load average {r.get('load', float('nan')):.1f} at the end of the run (other "
        "work shared the machine).",
        "",
        "| Per-turn overhead (no model time) | turn p50 | turn p99 | of which context build p50 | context build "
        "vs reference |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, name in (("plain", "tool-free turn"), ("tool", "turn with one gpio_write")):
        b = big[label]
        lines.append(f"| {name}, 10k entries / 1,000 files | {b['p50']:.1f} ms | {b['p99']:.1f} ms | "
                     f"{b['build_p50']:.1f} ms | {ref['p50'] / b['build_p50']:.0f}x faster |")
    for label, name in (("plain", "tool-free turn"), ("tool", "turn with one gpio_write")):
        s = small[label]
        lines.append(f"| {name}, empty memory / bundled datasheets (baseline for scale) | {s['p50']:.1f} ms | "
                     f"{s['p99']:.1f} ms | {s['build_p50']:.1f} ms | 10k/1,000 turn costs "
                     f"{big[label]['p50'] / s['p50']:.2f}x this |")
    lines += [
        f"| reference context build alone (whole-file substring retrieval + LIKE memory scan), same data | | | "
        f"{ref['p50']:.1f} ms (p99 {ref['p99']:.1f} ms) | baseline |",
        "",
        "The rest of a turn beyond the context build is the reflect (one capture committed to SQLite, with its "
        "provenance) and, for the tool turn, argument checking and the gpio_write on the simulator.",
        "",
        f"Target p50 <= 30 ms: tool-free {big['plain']['p50']:.1f} ms, with a tool call {big['tool']['p50']:.1f} ms.",
        "",
        "| Start-up (state already indexed) | median |",
        "| --- | --- |",
        "| `edge-agent agent -m` process start to the first provider request | "
        f"{st['first_request_s'] * 1000:.0f} ms |",
        f"| `edge-agent --version` (baseline: interpreter + CLI import) | {st['version_s'] * 1000:.0f} ms "
        f"({st['first_request_s'] / st['version_s']:.1f}x) |",
        "| `python -c \"import openai\"` (the SDK's own import, part of the first row) | "
        f"{st['openai_s'] * 1000:.0f} ms |",
        f"| `python -c pass` (baseline) | {st['python_s'] * 1000:.0f} ms |",
        "",
        "| Prompt (20 questions) | system + user text, mean (max) | est. tokens | tool schemas | est. tokens | tools |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    p = r["prompt"]
    for label in ("full", "compact"):
        x = p[label]
        lines.append(f"| {label} | {x['mean']:,.0f} ({x['max']:,}) chars | {x['tokens']:,} | {x['tools']:,} chars | "
                     f"{x['tool_tokens']:,} | {x['n_tools']} |")
    lines += ["", f"Compact mode sends {p['full']['mean'] / p['compact']['mean']:.1f}x less prompt text and "
              f"{p['full']['tools'] / p['compact']['tools']:.1f}x less tool schema than full mode "
              "(tokens estimated at 4 characters each)."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    publish("agent", lambda: markdown(run()), argv)


if __name__ == "__main__":
    main()
