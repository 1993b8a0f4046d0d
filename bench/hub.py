"""The local socket: routed CLI commands, round trips through the daemon, the daemon's own memory.

Each figure sits beside a baseline measured in the same run:

* `edge-agent gpio read PA5 --json` routed to a running daemon, against `edge-agent --help` (target:
  at most 2x) and against the same command with no daemon (it opens the board itself);
* what the routed command imports (from `python -X importtime`): no bus, index, memory or pydantic
  module may be among them;
* round trips per second of a 2-byte register read (BME280 0xF7) through the socket, as a CLI
  operation (`POST /op/i2c_read`) and as an MCP tool call (`tools/call i2c_read`), against the same
  operation and tool run in-process on a Runtime;
* VmRSS and VmHWM of the daemon itself (from its /proc/<pid>/status, not ru_maxrss of children, which
  inherits the parent's peak) on the embedded defaults (simulated board, demo watch with on-device
  inference, MCP over HTTP), against a bare interpreter and the 60 MiB target.

Run: `.venv/bin/python -m bench.hub` (`--no-write` only prints).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._proc import status_kib
from bench._sections import publish
from bench.runtime import EXE, _Daemon, _env, _median_wall, _rss_after

RUNS = 15
TRIPS = 400
READ = {"addr": 0x76, "register": 0xF7, "len": 2}
TOOL_ARGS = {"addr": "0x76", "register": 0xF7, "len": 2}
#: What the daemon loads, in its own order, imported one after the other in one fresh interpreter: each
#: step's VmRSS over the previous one is what that part adds on top of everything before it.
BUDGET = (
    ("CLI, daemon, pydantic and the config models (embedded defaults loaded)",
     "import edge_agent.cli, edge_agent.daemon; edge_agent.daemon.load_daemon_settings(None)"),
    ("the MCP SDK with Starlette, uvicorn, httpx2, opentelemetry and cryptography; the server modules",
     "import edge_agent.mcp.server, edge_agent.mcp.socket_server"),
    ("numpy and the LiteRT interpreter module (demo watch model)", "import ai_edge_litert.interpreter"),
)
#: Of the SDK step, what its own imports of other libraries add (measured before it, after the first step).
SDK_PARTS = (
    ("cryptography (imported by the SDK's request-state module)",
     "import cryptography.hazmat.primitives.ciphers.aead, cryptography.hazmat.primitives.kdf.hkdf"),
    ("httpx2 (imported by the SDK's resource types)", "import httpx2"),
)
SETTLE_S = 60.0  # the demo watch samples every 0.5 s and runs the model once its window is full
FORBIDDEN = ("edge_agent.bus", "edge_agent.rag", "edge_agent.memory", "edge_agent.config", "edge_agent.runtime",
             "pydantic", "numpy", "mcp", "sqlite3")


def _vm(pid: int) -> dict[str, float]:
    kib = status_kib(pid)
    return {key: kib[key] / 1024 for key in ("VmRSS", "VmHWM", "RssAnon", "RssFile") if key in kib}


def _steps_rss(steps: tuple[tuple[str, str], ...], before: str = "") -> list[float]:
    """VmRSS (MiB) after `before` and then after each step's code, all in one fresh interpreter."""
    code = "\n".join([
        "def rss():",
        "    return next(int(x.split()[1]) / 1024 for x in open('/proc/self/status') if x.startswith('VmRSS:'))",
        before, "print(rss())",
        *[f"{c}\nprint(rss())" for _, c in steps],
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()).stdout
    return [float(x) for x in out.split()]


def _mcp_http(state: Path, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """One MCP session over HTTP (initialize, then `calls`), as a client would open it."""
    import json

    import httpx2

    url = json.loads((state / "daemon.json").read_text())["url"]
    token = (state / "mcp-token").read_text().strip()
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    with httpx2.Client(headers=headers, timeout=60) as c:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        r = c.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        r.raise_for_status()
        if sid := r.headers.get("mcp-session-id"):
            c.headers["mcp-session-id"] = sid
        c.headers["mcp-protocol-version"] = r.json()["result"]["protocolVersion"]
        c.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}).raise_for_status()
        for i, (method, params) in enumerate(calls, 1):
            r = c.post(url, json={"jsonrpc": "2.0", "id": i, "method": method, "params": params})
            r.raise_for_status()
            if "error" in r.json() or r.json()["result"].get("isError"):
                raise RuntimeError(f"{method} failed: {r.text[:300]}")


def _demo_memory(state: Path, settle_s: float, **env: str) -> dict[str, dict[str, float]]:
    """The demo daemon's own VmRSS/VmHWM at READY=1, after the first MCP request, after the first tool calls
    and `settle_s` later."""
    demo = _Daemon(state, demo=True, **env)  # config-less: the embedded defaults with the demo watch
    try:
        out = {"ready": _vm(demo.proc.pid)}
        _mcp_http(demo.state, [("tools/list", {})])
        out["mcp"] = _vm(demo.proc.pid)
        _mcp_http(demo.state, [("tools/call", {"name": "i2c_read", "arguments": TOOL_ARGS}),
                               ("tools/call", {"name": "runtime_status", "arguments": {}})])
        out["tool"] = _vm(demo.proc.pid)
        time.sleep(settle_s)
        out["settled"] = _vm(demo.proc.pid)
        return out
    finally:
        demo.stop()


def _routed_imports(state: Path) -> list[str]:
    code = ("import sys; from edge_agent.cli import main; "
            f"main(['--state', {str(state)!r}, 'gpio', 'read', 'PA5', '--json'])")
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         env=_env(), check=True).stderr
    mods = [line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")
            and "|" in line]
    return [m for m in mods if m != "package"]


def _rate(fn: Any, n: int) -> float:
    for _ in range(20):
        fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return n / (time.perf_counter() - t)


def _in_process(state: Path) -> dict[str, float]:
    from edge_agent.config import load_settings
    from edge_agent.hub.tools import LocalToolCaller
    from edge_agent.runtime import Runtime
    from edge_agent.services.core import LocalServices
    from edge_agent.services.resources import RuntimeResources

    (state.parent / "inproc.toml").write_text("")
    rt = Runtime.build(load_settings(state.parent / "inproc.toml"), state)
    try:
        services = LocalServices(RuntimeResources(rt))
        caller = LocalToolCaller(rt)
        return {"op": _rate(lambda: services.call("i2c_read", dict(READ)), TRIPS),
                "tool": _rate(lambda: caller.call_tool("i2c_read", dict(TOOL_ARGS)), TRIPS)}
    finally:
        rt.close()


def measure() -> dict[str, Any]:
    from edge_agent.hub.client import HubClient, SocketServices

    res: dict[str, Any] = {"load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        direct_state = Path(tmp) / "direct"
        direct_state.mkdir()
        res["help_s"] = _median_wall([EXE, "--help"], RUNS)
        res["direct_s"] = _median_wall([EXE, "--state", str(direct_state), "gpio", "read", "PA5", "--json"], RUNS)
        d = _Daemon(Path(tmp) / "routed")
        try:
            res["routed_s"] = _median_wall([EXE, "--state", str(d.state), "gpio", "read", "PA5", "--json"], RUNS)
            res["help2_s"] = _median_wall([EXE, "--help"], RUNS)  # again, interleaved with the routed runs
            mods = _routed_imports(d.state)
            res["imports"] = len(mods)
            res["forbidden"] = sorted({m for m in mods if m.startswith(FORBIDDEN)})
            client = HubClient(d.state)
            caller = SocketServices(client)
            res["socket_op"] = _rate(lambda: client.op("i2c_read", dict(READ)), TRIPS)
            res["socket_tool"] = _rate(lambda: caller.call_tool("i2c_read", dict(TOOL_ARGS)), TRIPS)
        finally:
            d.stop()
        res["inproc"] = _in_process(Path(tmp) / "inproc")
        res["bare_mb"] = _rss_after("pass")
        budget = _steps_rss(BUDGET)
        res["budget"] = {label: b - a for (label, _), a, b in zip(BUDGET, budget, budget[1:], strict=False)}
        res["budget_total"] = budget[-1]
        sdk = _steps_rss(SDK_PARTS, before=BUDGET[0][1])
        res["sdk_parts"] = {label: b - a for (label, _), a, b in zip(SDK_PARTS, sdk, sdk[1:], strict=False)}
        # Same run, glibc's default arena count (8 per core): what the daemon's cap on arenas saves.
        res["uncapped"] = _demo_memory(Path(tmp) / "uncapped", 0.0, MALLOC_ARENA_MAX=str(8 * (os.cpu_count() or 1)))
        res["demo"] = _demo_memory(Path(tmp) / "demo", SETTLE_S)
    return res


def _memory_rows(res: dict[str, Any]) -> list[str]:
    demo, unc, bare = res["demo"], res["uncapped"], res["bare_mb"]
    ready, settled = demo["ready"], demo["settled"]

    def row(label: str, vm: dict[str, float], base_label: str, base: float) -> str:
        return (f"| {label} | {vm['VmRSS']:.1f} MiB | {base_label} {base:.1f} MiB | {vm['VmRSS'] / base:.2f}x | "
                f"{vm['VmRSS'] / 60:.2f} of 60 MiB |")

    return [
        row("daemon VmRSS at READY=1, embedded defaults (demo watch with model, MCP HTTP)", ready,
            "bare interpreter", bare),
        row("same daemon after its first MCP request (HTTP: initialize, tools/list)", demo["mcp"], "at READY=1",
            ready["VmRSS"]),
        row("same daemon after its first tool calls (i2c_read, runtime_status)", demo["tool"], "at READY=1",
            ready["VmRSS"]),
        f"| same daemon {SETTLE_S:.0f} s later (demo watch sampling, model running): VmRSS / VmHWM | "
        f"{settled['VmRSS']:.1f} / {settled['VmHWM']:.1f} MiB | at READY=1 {ready['VmRSS']:.1f} MiB | "
        f"{settled['VmHWM'] / ready['VmRSS']:.2f}x | {settled['VmHWM'] / 60:.2f} of 60 MiB |",
        f"| of which anonymous (heap, objects) / file-backed (library code and data the kernel can drop and "
        f"read again) | {settled['RssAnon']:.1f} / {settled['RssFile']:.1f} MiB | VmRSS {settled['VmRSS']:.1f} MiB | "
        f"{settled['RssAnon'] / settled['VmRSS']:.2f} / {settled['RssFile'] / settled['VmRSS']:.2f} | |",
        f"| heap arenas capped at two (the daemon's default), after the first tool calls | {demo['tool']['VmRSS']:.1f}"
        f" MiB | glibc's default cap (MALLOC_ARENA_MAX={8 * (os.cpu_count() or 1)}) {unc['tool']['VmRSS']:.1f} MiB |"
        f" {demo['tool']['VmRSS'] / unc['tool']['VmRSS']:.3f}x | |",
    ]


def render(res: dict[str, Any]) -> str:
    ms = 1000.0
    help_s = statistics.mean([res["help_s"], res["help2_s"]])
    settled = res["demo"]["settled"]
    forbidden = ", ".join(res["forbidden"]) or "none"
    lines = [
        "## Local socket (`bench/hub.py`)",
        "",
        f"Medians of {RUNS} runs per command, {TRIPS} sequential round trips per rate; load average "
        f"{res['load']:.1f} at the start (2 shared cores). Targets: a routed command <= 2x `--help`; the "
        "daemon <= 60 MiB resident once ready.",
        "",
        "| Figure | Value | Baseline (same run) | Ratio | Target |",
        "| --- | --- | --- | --- | --- |",
        f"| `gpio read PA5 --json` routed to the daemon | {res['routed_s'] * ms:.0f} ms | `edge-agent --help` "
        f"{help_s * ms:.0f} ms | {res['routed_s'] / help_s:.2f}x | {res['routed_s'] / help_s / 2:.2f} of 2x |",
        f"| `gpio read PA5 --json` with no daemon (opens the board itself) | {res['direct_s'] * ms:.0f} ms | "
        f"routed {res['routed_s'] * ms:.0f} ms | {res['direct_s'] / res['routed_s']:.1f}x | |",
        f"| modules the routed command imports | {res['imports']} | bus, index, memory, config, pydantic, "
        f"numpy, mcp among them: {forbidden} | | none |",
        f"| 2-byte register read, CLI operation over the socket | {res['socket_op']:.0f} /s | same operation "
        f"in-process {res['inproc']['op']:.0f} /s | {res['inproc']['op'] / res['socket_op']:.0f}x slower | |",
        f"| 2-byte register read, MCP `tools/call` over the socket | {res['socket_tool']:.0f} /s | same tool "
        f"in-process {res['inproc']['tool']:.0f} /s | {res['inproc']['tool'] / res['socket_tool']:.0f}x slower | |",
        *_memory_rows(res),
        "",
        "Where the daemon's memory goes: its parts imported in its own order, one after the other in one fresh "
        f"interpreter (MiB each step adds; a bare interpreter holds {res['bare_mb']:.1f} MiB):",
        "",
        "| Part | Adds |",
        "| --- | --- |",
        *[f"| {label} | {mib:.1f} MiB |" for label, mib in res["budget"].items()],
        *[f"| of the SDK step: {label} | {mib:.1f} MiB |" for label, mib in res["sdk_parts"].items()],
        f"| all of the above, before any component is built | {res['budget_total']:.1f} MiB |",
        "",
        f"The 60 MiB target is not met ({settled['VmRSS']:.0f} MiB after a minute): importing the libraries the "
        f"embedded defaults need in the daemon's own process already holds {res['budget_total']:.0f} MiB, before "
        "any datasheet, database, board, model or server exists. The MCP SDK cannot be imported without its "
        "client side, Starlette, uvicorn (with click), httpx2, opentelemetry and cryptography, which its own "
        "modules import; LiteRT's Python wrapper needs numpy; those are the libraries the project uses, not "
        "edge_agent code. What the daemon does on top of them (the runtime's components, the model, two MCP "
        f"servers, the threads, the first requests) is {settled['VmRSS'] - res['budget_total']:.0f} MiB "
        f"({(settled['VmRSS'] - res['budget_total']) / settled['VmRSS']:.0%} of the total). Two of those costs are "
        "cut: the tool records (the pydantic "
        "models generated from every tool's signature) are built once and shared by the local socket and HTTP, "
        "and glibc's heap arenas are capped at two before any thread starts, so the start-up threads and "
        "workers do not each keep a partly empty arena. The local socket adds no library of its own: it is "
        "served by the same uvicorn and SDK as the HTTP endpoint.",
        "",
        "A routed command parses its arguments, connects to `<state>/hub.sock` and prints the JSON the "
        "daemon returns: the standard library's http.client is all it loads beyond argparse. Each round "
        "trip over the socket is a new connection, an HTTP request through uvicorn and Starlette and a "
        "worker-thread hop; an MCP call adds the SDK's JSON-RPC handling and argument and result validation "
        "in a fresh stateless session.",
    ]
    return "\n".join(lines)


#: Lookups a user runs beside the daemon: answered from its loaded indexes and open store when routed.
LOOKUPS: tuple[tuple[str, ...], ...] = (
    ("pins", "resolve", "red_led", "--json"),
    ("pins", "which", "PA5", "--json"),
    ("rag", "query", "BME280 chip id register", "--json"),
    ("memory", "recall", "fan relay", "--json"),
    ("cache", "stats"),
    ("gpio", "read", "PA5", "--json"),  # a hardware command, for reference
)
LOOKUP_RUNS = 11
DIRECT_RUNS = 5


def _imports_of(state: Path, argv: tuple[str, ...]) -> list[str]:
    code = f"import sys; from edge_agent.cli import main; main(['--state', {str(state)!r}, *{list(argv)!r}])"
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         env=_env(), check=True).stderr
    return [line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")
            and "|" in line]


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_env())
    return time.perf_counter() - t


def _paired(cmd: list[str], n: int) -> tuple[float, float]:
    """Medians of `cmd` and of `edge-agent --help`, run alternately, so both see the same load on a shared
    machine."""
    help_, runs = [], []
    for _ in range(n):
        help_.append(_wall([EXE, "--help"]))
        runs.append(_wall(cmd))
    return statistics.median(runs), statistics.median(help_)


def measure_lookups() -> dict[str, Any]:
    res: dict[str, Any] = {"load": os.getloadavg()[0], "routed": {}, "help": {}, "direct": {}, "forbidden": {}}
    with tempfile.TemporaryDirectory() as tmp:
        direct_state = Path(tmp) / "direct"
        direct_state.mkdir()
        for argv in LOOKUPS:  # no daemon: each run loads what it needs (the rag index is built on the first)
            subprocess.run([EXE, "--state", str(direct_state), *argv], capture_output=True, env=_env(), check=True)
            res["direct"][argv] = _median_wall([EXE, "--state", str(direct_state), *argv], DIRECT_RUNS)
        d = _Daemon(Path(tmp) / "routed")
        try:
            for argv in LOOKUPS:
                res["routed"][argv], res["help"][argv] = _paired([EXE, "--state", str(d.state), *argv], LOOKUP_RUNS)
                mods = _imports_of(d.state, argv)
                res["forbidden"][argv] = sorted({m for m in mods if m.startswith(FORBIDDEN)})
        finally:
            d.stop()
    return res


def render_lookups(res: dict[str, Any]) -> str:
    ms = 1000.0
    rows = []
    for argv in LOOKUPS:
        routed, help_s, direct = res["routed"][argv], res["help"][argv], res["direct"][argv]
        forbidden = ", ".join(res["forbidden"][argv]) or "none"
        rows.append(f"| `{' '.join(argv)}` | {routed * ms:.0f} ms | `--help` {help_s * ms:.0f} ms | "
                    f"{routed / help_s:.2f}x | {direct * ms:.0f} ms | {direct / routed:.1f}x | {forbidden} |")
    return "\n".join([
        "## Lookups through the daemon (`bench/hub.py --lookups`)",
        "",
        f"Medians of {LOOKUP_RUNS} runs of each routed command, each run right after one of `edge-agent --help` "
        "(the baseline, so both see the same load on the shared machine); load average "
        f"{res['load']:.1f} at the start (2 cores shared by every job). Target: a routed command <= 2x `--help`. "
        f"\"No daemon\" ({DIRECT_RUNS} runs) is the same command with no daemon serving the state directory: it "
        "loads the pin index, the datasheet index or the store itself (the datasheet index is built once before "
        "timing).",
        "",
        "| Command | Routed | Baseline (same run) | Routed / `--help` | No daemon | No daemon / routed | bus, index, "
        "memory, config, pydantic, numpy, mcp modules the routed command imports |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
    ])


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md.

    ``--lookups`` measures only the routed lookups (section hub-lookups), which takes a minute or two.
    """
    args = sys.argv[1:] if argv is None else argv
    if "--lookups" in args:
        publish("hub-lookups", lambda: render_lookups(measure_lookups()), args, flags=("--lookups",))
        return
    publish("hub", lambda: render(measure()), argv, flags=("--lookups",))


if __name__ == "__main__":
    main()
