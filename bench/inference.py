"""On-device inference: latency per window, watch-loop CPU share at 1 Hz and 50 Hz, interpreter memory.

Everything runs against ``sim://nucleo-f401re`` and the bundled ``bme280_anomaly.tflite``. Each
watch loop runs in its own child process so ``time.process_time()`` and VmRSS belong to that loop
alone; baselines come from the same run: a rule-only watch beside the model watch, the window
summary beside the inference, the process before the interpreter beside after. Prints the
Markdown section and writes it into BENCHMARKS.md (``--no-write`` only prints).
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench._sections import publish

ROOT = Path(__file__).resolve().parent.parent
N_LATENCY = 3000
LOOPS = (  # (label, rate_hz, seconds, watch kind)
    ("rule-only", 50.0, 8.0, "rule"),
    ("model, every 16 samples", 50.0, 8.0, "model"),
    ("model, every sample", 50.0, 8.0, "sliding"),
    ("rule-only", 1.0, 20.0, "rule"),
    ("model, every sample", 1.0, 20.0, "sliding"),
)


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _watch(kind: str, rate_hz: float) -> dict[str, Any]:
    base = {"name": "w", "adapter": "nucleo-f401re", "interval_s": 1.0 / rate_hz, "window": 16,
            "rate_limit": {"max_captures": 1, "per_s": 3600}}
    if kind == "rule":
        return {**base, "rule": {"kind": "threshold", "on": "temperature_c", "stat": "max", "above": 60}}
    return {**base, "step": 1 if kind == "sliding" else 0, "model": {"path": "builtin:bme280_anomaly"},
            "rule": {"kind": "threshold", "above": 0.5}}


# --- child processes ---------------------------------------------------------------------------------


def child_loop(kind: str, rate_hz: float, seconds: float) -> dict[str, Any]:
    """Run one watch at `rate_hz` for `seconds` against the sim; report CPU time and counters."""
    from edge_agent.bus import open_adapter
    from edge_agent.config import parse_settings
    from edge_agent.watch import WatchRunner

    settings = parse_settings({"watch": [_watch(kind, rate_hz)]})
    adapter = open_adapter("sim://nucleo-f401re", name="nucleo-f401re")
    runner = WatchRunner(settings, {"nucleo-f401re": adapter}, None)
    stop = threading.Event()
    timer = threading.Timer(seconds, stop.set)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    timer.start()
    runner.run(stop)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    w = runner.watches["w"]
    return {"cpu_s": cpu, "wall_s": wall, "samples": w.samples, "evaluations": w.evaluations,
            "overruns": w.overruns, "invoke_s": w.model.total_invoke_s if w.model else 0.0,
            "invocations": w.model.invocations if w.model else 0}


def child_memory() -> dict[str, Any]:
    """VmRSS with edge_agent imported, after importing the interpreter, after loading the model, after a run."""
    import edge_agent.watch  # noqa: F401  (the baseline includes the watch package itself)

    base = _rss_kb()
    from edge_agent.watch.inference import interpreter_class

    interpreter_class()
    import numpy  # noqa: F401

    imported = _rss_kb()
    from edge_agent.watch import Model, TensorSpec, builtin_model_path

    model = Model.load(builtin_model_path("bme280_anomaly"), TensorSpec((1, 16, 3)), TensorSpec((1, 1)))
    loaded = _rss_kb()
    model.predict([[22.5, 45.0, 1009.25]] * 16)
    return {"base_kb": base, "imported_kb": imported, "loaded_kb": loaded, "first_invoke_kb": _rss_kb()}


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    code = f"import json, bench.inference as b; print(json.dumps(b._child({args!r})))"
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def _child(args: list[str]) -> dict[str, Any]:
    if args[0] == "memory":
        return child_memory()
    return child_loop(args[1], float(args[2]), float(args[3]))


def _collect(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = proc.communicate(timeout=120)
    if proc.returncode:
        raise RuntimeError(f"benchmark child failed with exit code {proc.returncode}")
    return json.loads(out.strip().splitlines()[-1])


# --- in-process measurements ---------------------------------------------------------------------------


def latency() -> dict[str, Any]:
    """Per-window inference latency vs the pure-Python window summary, and one sim sensor read."""
    from edge_agent.bus import open_adapter
    from edge_agent.drivers.bme280 import BME280
    from edge_agent.watch import Model, TensorSpec, Window, builtin_model_path
    from edge_agent.watch.sensors import SENSORS

    rng = random.Random(8)
    model = Model.load(builtin_model_path("bme280_anomaly"), TensorSpec((1, 16, 3)), TensorSpec((1, 1)))
    window = Window(SENSORS["bme280"].channels, 16)
    infer, summ = [], []
    for i in range(N_LATENCY):
        window.add({"temperature_c": 22.5 + rng.gauss(0, 0.02), "humidity_pct": 45 + rng.gauss(0, 0.1),
                    "pressure_hpa": 1009.25 + rng.gauss(0, 0.05)}, at=float(i))
        if len(window) < 16:
            continue
        t0 = time.perf_counter()
        window.summary()
        t1 = time.perf_counter()
        model.predict(window.rows())
        t2 = time.perf_counter()
        summ.append(t1 - t0)
        infer.append(t2 - t1)
    with open_adapter("sim://nucleo-f401re") as sim:
        sensor = BME280(sim.i2c(), address=0x76)
        sensor.read()
        t0 = time.perf_counter()
        for _ in range(200):
            sensor.read()
        read_s = (time.perf_counter() - t0) / 200
    q = statistics.quantiles(infer, n=100)
    return {"backend": model.backend, "n": len(infer), "p50": q[49], "p99": q[98],
            "summary_p50": statistics.median(summ), "sim_read": read_s}


# --- report --------------------------------------------------------------------------------------------


def run() -> dict[str, Any]:
    """All measurements; the 1 Hz loops run in the background while the 50 Hz ones run one at a time."""
    slow = [(label, rate, secs, kind, _spawn(["loop", kind, str(rate), str(secs)]))
            for label, rate, secs, kind in LOOPS if rate < 10]
    loops = []
    for label, rate, secs, kind in LOOPS:
        if rate >= 10:
            loops.append((label, rate, secs, kind, _collect(_spawn(["loop", kind, str(rate), str(secs)]))))
    lat = latency()
    mem = _collect(_spawn(["memory"]))
    loops += [(label, rate, secs, kind, _collect(p)) for label, rate, secs, kind, p in slow]
    return {"loops": loops, "latency": lat, "memory": mem}


def markdown(r: dict[str, Any]) -> str:
    """The BENCHMARKS.md section text."""
    lat, mem = r["latency"], r["memory"]
    us = 1e6
    lines = [
        "## On-device inference (`bench/inference.py`)",
        "",
        f"Bundled `bme280_anomaly.tflite` (7.9 KB, [1,16,3] float32 -> [1,1]) on `{lat['backend']}`, one",
        "thread, XNNPACK default delegate. Watch loops sample `sim://nucleo-f401re`'s BME280 through the",
        "real driver, each in its own process; CPU = `time.process_time()` over the run / wall time.",
        "",
        "| per window | median | ratio |",
        "|---|---|---|",
        f"| model inference ({lat['n']} windows; p99 {lat['p99'] * us:.1f} µs) | {lat['p50'] * us:.1f} µs | "
        f"{lat['p50'] / lat['summary_p50']:.2f}x the window summary |",
        f"| window summary (min/max/mean, pure Python; the rule-only work) | {lat['summary_p50'] * us:.1f} µs | "
        "1.00x |",
        f"| one BME280 read through the driver on the simulator | {lat['sim_read'] * us:.0f} µs | "
        f"{lat['sim_read'] / lat['p50']:.0f}x the inference |",
        "",
        "| rate | watch | run | samples | inferences | CPU share | vs rule-only |",
        "|---|---|---|---|---|---|---|",
    ]
    base: dict[float, float] = {}
    for _label, rate, _secs, kind, res in r["loops"]:
        share = res["cpu_s"] / res["wall_s"]
        if kind == "rule":
            base[rate] = share
    for label, rate, _secs, _kind, res in r["loops"]:
        share = res["cpu_s"] / res["wall_s"]
        ratio = f"{share / base[rate]:.2f}x" if base.get(rate) else "-"
        lines.append(f"| {rate:g} Hz | {label} | {res['wall_s']:.1f} s | {res['samples']} | {res['invocations']} | "
                     f"{share * 100:.2f} % | {ratio} |")
    mb = 1 / 1024
    lines += [
        "",
        "| memory (VmRSS, fresh process) | MB | added | ratio |",
        "|---|---|---|---|",
        f"| Python + edge_agent.watch (baseline) | {mem['base_kb'] * mb:.1f} | - | 1.00x |",
        f"| + interpreter and numpy imported | {mem['imported_kb'] * mb:.1f} | "
        f"{(mem['imported_kb'] - mem['base_kb']) * mb:.1f} | {mem['imported_kb'] / mem['base_kb']:.2f}x |",
        f"| + model loaded, tensors allocated | {mem['loaded_kb'] * mb:.1f} | "
        f"{(mem['loaded_kb'] - mem['imported_kb']) * mb:.1f} | {mem['loaded_kb'] / mem['base_kb']:.2f}x |",
        f"| + first inference | {mem['first_invoke_kb'] * mb:.1f} | "
        f"{(mem['first_invoke_kb'] - mem['loaded_kb']) * mb:.1f} | {mem['first_invoke_kb'] / mem['base_kb']:.2f}x |",
        "",
        f"Reading: one inference costs {lat['p50'] * us:.0f} µs, {lat['sim_read'] / lat['p50']:.0f}x less than one "
        "simulated",
        "sensor read, so the loop's CPU goes to sampling (here the Python BME280 simulator answering the",
        "driver; on hardware a kernel I2C transfer). Inferring once per 16-sample window is "
        f"{_ratio(r, 50.0, 'model')} the rule-only",
        f"loop's CPU at 50 Hz; inferring on every sample (window summary + inference per sample) is "
        f"{_ratio(r, 50.0, 'sliding')}, and",
        f"{_ratio(r, 1.0, 'sliding')} at 1 Hz, where the whole loop stays under "
        f"{max(_share(r, 1.0, k) for k in ('rule', 'sliding')) * 100:.2f} % of one core (a 1 Hz run uses "
        f"{max(x[4]['cpu_s'] for x in r['loops'] if x[1] == 1.0) * 1000:.0f} ms of CPU in all, so its ratio is",
        "mostly noise; so is any gap under ~10 % at 50 Hz on this shared machine). The interpreter's",
        "real cost is memory: importing LiteRT and numpy, paid once per process and only when a watch names a model.",
    ]
    return "\n".join(lines) + "\n"


def _share(r: dict[str, Any], rate: float, kind: str) -> float:
    res = next(x[4] for x in r["loops"] if x[1] == rate and x[3] == kind)
    return float(res["cpu_s"] / res["wall_s"])


def _ratio(r: dict[str, Any], rate: float, kind: str) -> str:
    return f"{_share(r, rate, kind) / _share(r, rate, 'rule'):.2f}x"



def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md."""
    publish("inference", lambda: markdown(run()), argv)


if __name__ == "__main__":
    main()
