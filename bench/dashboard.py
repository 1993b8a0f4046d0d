"""Status page benchmark: what the page costs the device.

Each figure sits beside a baseline measured in the same run:

* bytes of the page and its assets (HTML, script, stylesheet) against the 200 KB cap, and one poll
  of ``/api/status`` beside them;
* collecting one snapshot in-process (boards, pins, watches, sync, memory; I2C scan cached) against
  ``Runtime.status()``, what the ``runtime_status`` tool returns;
* one I2C scan of the simulated bus (the page repeats it at most every 30 s) against the snapshot;
* ``/api/status`` over HTTP from a running daemon, against the same daemon's ``/static/style.css``;
* the daemon's resident memory (VmRSS and VmHWM from its own /proc/<pid>/status) after a minute of
  one page polling, against the same daemon before the first poll.

Run: `.venv/bin/python -m bench.dashboard` (stores the section in BENCHMARKS.md; `--no-write` only prints).
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._proc import status_kib
from bench._sections import publish

EXE = str(Path(sys.executable).with_name("edge-agent"))
CAP = 200 * 1024
N = 200
POLL_S = 60.0


def _p50(fn: object, n: int = N) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _proc_kib(pid: int) -> dict[str, int]:
    kib = status_kib(pid)
    return {key: kib[key] for key in ("VmRSS", "VmHWM") if key in kib}


def _in_process(tmp: Path) -> list[str]:
    from edge_agent.config import Settings
    from edge_agent.dashboard.collect import Collector
    from edge_agent.dashboard.web import STATIC, static_file
    from edge_agent.runtime import Runtime

    rt = Runtime.build(Settings(), tmp / "state-inproc")
    try:
        collector = Collector(rt)
        first = collector.snapshot()  # the first one scans the bus; the scan is then cached for 30 s
        payload = len(json.dumps(first, separators=(",", ":")))
        snap = _p50(collector._collect)
        status = _p50(rt.status)
        slot = rt.slot()
        scan = _p50(lambda: slot.adapter.i2c().scan_report(), 20)
    finally:
        rt.close()
    assets = sum(len(static_file(n)) for n in STATIC)
    return [
        f"| page + assets (HTML, script, stylesheet) | {assets / 1024:.1f} KB | cap 200 KB "
        f"| {assets / CAP:.3f} of the cap |",
        f"| one `/api/status` poll (JSON, simulated board, no watch) | {payload / 1024:.1f} KB | page + assets "
        f"{assets / 1024:.1f} KB | {payload / assets:.2f}x |",
        f"| collect one snapshot in-process (I2C scan cached) p50 | {snap * 1e3:.2f} ms | `Runtime.status()` "
        f"{status * 1e3:.2f} ms | {snap / status:.1f}x |",
        f"| one I2C scan of the simulated bus (every 30 s at most) p50 | {scan * 1e3:.2f} ms | snapshot "
        f"{snap * 1e3:.2f} ms | {scan / snap:.1f}x |",
    ]


def _daemon(tmp: Path) -> list[str]:
    import httpx2

    state = tmp / "state-daemon"
    state.mkdir()
    (tmp / "empty.toml").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "EDGE_AGENT_CONFIG")}
    proc = subprocess.Popen([EXE, "--config", str(tmp / "empty.toml"), "--state", str(state), "run", "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (state / "daemon.json").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the daemon did not start")
            time.sleep(0.1)
        time.sleep(2.0)  # settle
        base = json.loads((state / "daemon.json").read_text())["url"].rsplit("/mcp", 1)[0]
        token = (state / "mcp-token").read_text().strip()
        before = _proc_kib(proc.pid)
        with httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
            api = _p50(lambda: c.get("/api/status").raise_for_status(), 100)
            css = _p50(lambda: c.get("/static/style.css").raise_for_status(), 100)
            end = time.monotonic() + POLL_S
            polls = 0
            while time.monotonic() < end:  # one open page: a poll a second
                c.get("/api/status").raise_for_status()
                polls += 1
                time.sleep(1.0)
        after = _proc_kib(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    return [
        f"| `/api/status` over HTTP from the daemon p50 | {api * 1e3:.2f} ms | `/static/style.css` {css * 1e3:.2f} ms "
        f"| {api / css:.1f}x |",
        f"| daemon VmRSS after {polls} polls (one page open for {POLL_S:.0f} s) | {after['VmRSS'] / 1024:.1f} MB | "
        f"before the first poll {before['VmRSS'] / 1024:.1f} MB | {after['VmRSS'] / before['VmRSS']:.2f}x |",
        f"| daemon VmHWM after the polls | {after['VmHWM'] / 1024:.1f} MB | before {before['VmHWM'] / 1024:.1f} MB "
        f"| {after['VmHWM'] / before['VmHWM']:.2f}x |",
    ]


def produce() -> str:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = _in_process(tmp) + _daemon(tmp)
    head = ["## Status page (`bench/dashboard.py`)", "",
            f"Medians of {N} runs in-process and 100 over HTTP; memory from the daemon's own /proc/<pid>/status.", "",
            "| Figure | Value | Baseline | Ratio |", "| --- | --- | --- | --- |"]
    tail = ["", "Pages share one snapshot per 0.5 s, so most of the back-to-back HTTP polls above reuse it; an "
            "open page polls once a second. The I2C scan is the only bus traffic the page causes, and the pin "
            "levels come from what the adapter already knows, so polling adds no bus transactions between scans."]
    return "\n".join(head + rows + tail) + "\n"


def main() -> None:
    publish("dashboard", produce)


if __name__ == "__main__":
    main()
