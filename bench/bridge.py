"""Bridge round trips per second over a pty to the host-built firmware, 1 and 8 requests in flight.

Both sides are production code: the ``bridge://`` host driver (pyserial, reader thread, id
matching) and the firmware's protocol core, compiled for the host on a simulated board. A pty has
no baud rate, so the figures measure the software on both ends; the baseline is what a real
115200-baud UART allows for the same bytes, computed for the exact request and reply sizes
measured (10 bits per byte: start, 8 data, stop). Sequential round trips pay for request plus
reply on the wire; pipelined ones are limited by the busier direction alone.

Run: ``.venv/bin/python -m bench.bridge`` (``--no-write`` only prints). Writes the ``bridge`` section
of BENCHMARKS.md.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench._sections import publish
from edge_agent.bus import open_adapter
from edge_agent.bus.bridge.adapter import BridgeAdapter
from edge_agent.bus.bridge.hostsim import HostFirmware, build_host_firmware
from edge_agent.bus.bridge.protocol import encode_request
from edge_agent.config import AdapterSafety, SafetyConfig

BAUD = 115200
ROUNDS = 5
N = 1500
PACED_N = 300
WORKLOADS: dict[str, tuple[str, dict[str, Any] | None, int]] = {
    # name: (cmd, args, reply bytes incl. newline, from PROTOCOL.md's reply shapes)
    "ping": ("ping", None, len(b'{"id":"1234","ok":true,"result":"pong"}\n')),
    "i2c_write_read 2 B (BME280 register)": (
        "i2c_write_read", {"addr": 0x76, "data": "fa", "len": 2},
        len(b'{"id":"1234","ok":true,"result":"0000"}\n')),
}


def _sequential(adapter: BridgeAdapter, cmd: str, args: dict[str, Any] | None, n: int) -> float:
    link = adapter.link
    t0 = time.perf_counter()
    for _ in range(n):
        link.request(cmd, args)
    return n / (time.perf_counter() - t0)


def _pipelined(adapter: BridgeAdapter, cmd: str, args: dict[str, Any] | None, n: int, window: int) -> float:
    link = adapter.link
    in_flight = []
    t0 = time.perf_counter()
    deadline = time.monotonic() + 60
    for _ in range(n):
        if len(in_flight) == window:
            link.wait(in_flight.pop(0), deadline=deadline)
        in_flight.append(link.submit(cmd, args, deadline=deadline))
    for p in in_flight:
        link.wait(p, deadline=deadline)
    return n / (time.perf_counter() - t0)


def _paced(binary: Path, safety: SafetyConfig) -> dict[str, float]:
    """Ping with the simulated board pacing its UART at 115200 baud in both directions."""
    with HostFirmware(binary, baud=BAUD) as fw:
        adapter = open_adapter(f"bridge://{fw.path}", safety=safety)
        assert isinstance(adapter, BridgeAdapter)
        with adapter:
            _sequential(adapter, "ping", None, 20)
            return {"seq": statistics.median(_sequential(adapter, "ping", None, PACED_N) for _ in range(ROUNDS)),
                    "pipe": statistics.median(_pipelined(adapter, "ping", None, PACED_N, 8) for _ in range(ROUNDS))}


def run() -> dict[str, Any]:
    """Measure every workload; returns the figures for ``markdown``."""
    binary = build_host_firmware()
    results: dict[str, Any] = {}
    safety = SafetyConfig(adapters={"bridge": AdapterSafety(read_only=False)})
    results["_paced"] = _paced(binary, safety)
    with HostFirmware(binary) as fw:
        adapter = open_adapter(f"bridge://{fw.path}", safety=safety)
        assert isinstance(adapter, BridgeAdapter)
        with adapter:
            for name, (cmd, args, reply_bytes) in WORKLOADS.items():
                # The link adds one resync newline before every request.
                request_bytes = 1 + len(encode_request("1234", cmd, args))
                _sequential(adapter, cmd, args, 200)  # warm-up
                seq = statistics.median(_sequential(adapter, cmd, args, N) for _ in range(ROUNDS))
                pipe = statistics.median(_pipelined(adapter, cmd, args, N, 8) for _ in range(ROUNDS))
                line_seq = BAUD / 10 / (request_bytes + reply_bytes)
                line_pipe = BAUD / 10 / max(request_bytes, reply_bytes)
                results[name] = {"request_bytes": request_bytes, "reply_bytes": reply_bytes, "seq": seq,
                                 "pipe": pipe, "line_seq": line_seq, "line_pipe": line_pipe}
            health = adapter.link.health()
    results["_health"] = health
    return results


def markdown(results: dict[str, Any]) -> str:
    """The BENCHMARKS.md section text."""
    health = results.pop("_health")
    paced = results.pop("_paced")
    lines = [
        "## Firmware bridge round trips (`bench/bridge.py`)",
        "",
        "Host driver (`bridge://`, pyserial) to the firmware's protocol core built for the host, over a",
        f"pty; median of {ROUNDS} runs of {N} round trips. Baseline: the same bytes on a real 115200-baud",
        "UART (10 bits per byte); sequential = request + reply on the wire per round trip, pipelined =",
        "the busier direction only. For scale, a typical 60-byte request + 40-byte reply is",
        f"{BAUD / 10 / 100:.0f} sequential round trips/s at 115200 baud.",
        "",
        "| workload | bytes req/reply | in flight | pty round trips/s | 115200-baud limit/s | ratio pty / UART |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        size = f"{r['request_bytes']} / {r['reply_bytes']}"
        lines.append(f"| {name} | {size} | 1 | {r['seq']:,.0f} | {r['line_seq']:,.0f} | "
                     f"{r['seq'] / r['line_seq']:.1f}x |")
        lines.append(f"| {name} | {size} | 8 | {r['pipe']:,.0f} | {r['line_pipe']:,.0f} | "
                     f"{r['pipe'] / r['line_pipe']:.1f}x |")
    first = next(iter(results.values()))
    lines += [
        "",
        "Same driver and firmware, the simulated board pacing its UART at 115200 baud in both directions",
        f"(`BRIDGE_SIM_BAUD`, median of {ROUNDS} x {PACED_N} pings):",
        "",
        "| workload | in flight | paced round trips/s | 115200-baud limit/s | ratio |",
        "|---|---|---|---|---|",
        f"| ping | 1 | {paced['seq']:,.0f} | {first['line_seq']:,.0f} | {paced['seq'] / first['line_seq']:.2f} |",
        f"| ping | 8 | {paced['pipe']:,.0f} | {first['line_pipe']:,.0f} | {paced['pipe'] / first['line_pipe']:.2f} |",
        "",
        f"Pipelining gain at 115200 baud: {paced['pipe'] / paced['seq']:.2f}x (8 in flight / 1): the link moves from",
        "the sequential limit (request + reply per round trip) to the one-direction limit, at about",
        f"{paced['pipe'] / first['line_pipe']:.0%} of it. Unpaced, both ends are CPU-bound (Python reader thread, GIL,",
        "two cores shared with other jobs) and the 1-vs-8 figures swing by tens of percent between runs",
        f"(this run: {first['pipe'] / first['seq']:.2f}x); what they show is headroom: the software handles",
        "well over ten times the 115200-baud line rate either way.",
        f"Link counters after the run: {health['requests']} requests, {health['timeouts']} timeouts, "
        f"{health['garbage_lines'] + health['stray_replies'] + health['late_replies']} skipped lines.",
    ]
    return "\n".join(lines) + "\n"



def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md."""
    publish("bridge", lambda: markdown(run()), argv)


if __name__ == "__main__":
    main()
