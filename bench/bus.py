"""Bus layer overhead: a 2-byte register read through the Adapter API vs calling the simulated part directly.

Three ways to read the BME280's temperature MSB/LSB (registers 0xFA-0xFB) on sim://nucleo-f401re:

* direct: the part model itself (pointer write, 2-byte read) - the baseline, the least work a read can be;
* world: the simulated bus (fault check, transaction log) without the public API;
* layer: ``adapter.i2c().read_register(0x76, 0xFA, 2)`` - address/register/length validation, closed
  check, the simulated bus, register tagging of errors.

Also GPIO: ``adapter.gpio_write("D13", v)`` (name resolution cache, safety check) vs the world call.
The overhead is layer minus direct; the target is <= 10 us per transaction (a 2-byte register read
takes about 120 us on a 400 kHz I2C bus). Run: ``.venv/bin/python -m bench.bus [--no-write]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bench._sections import publish
from edge_agent.bus import open_adapter
from edge_agent.bus.sim import SimAdapter

N = 10_000
ROUNDS = 15
WIRE_US = 120.0  # 2-byte register read at 400 kHz: START, addr+W, reg, Sr, addr+R, 2 bytes, STOP ~ 47 bits


def per_call_ns(fns: dict[str, Callable[[], object]], n: int = N, rounds: int = ROUNDS,
                between: Callable[[], None] | None = None) -> dict[str, float]:
    """Best (least disturbed) mean time per call over ``rounds`` of ``n`` calls, in ns.

    The paths take turns within each round, so load from other processes on the shared machine hits them
    alike; the minimum over rounds is the figure least inflated by that load.
    """
    best = {name: float("inf") for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            if between is not None:
                between()
            t0 = time.perf_counter_ns()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter_ns() - t0) / n)
    return best


def measure() -> dict[str, float]:
    """Run the three-way comparison and return ns per call."""
    adapter = open_adapter("sim://nucleo-f401re")
    assert isinstance(adapter, SimAdapter)
    world = adapter.world
    part = world.device(0x76)
    bus = adapter.i2c()
    url = adapter.url
    bus_no = bus.bus
    pointer = b"\xfa"

    def direct() -> bytes:
        part.write(pointer)
        return part.read(2)

    def via_world() -> bytes:
        return world.i2c_write_read(url, bus_no, 0x76, pointer, 2)

    def via_layer() -> bytes:
        return bus.read_register(0x76, 0xFA, 2)

    assert direct() == via_world() == via_layer()
    clear = adapter.clear_log
    res = per_call_ns({"direct": direct, "world": via_world, "layer": via_layer}, between=clear)
    state = [0]

    def gpio_direct() -> None:
        state[0] ^= 1
        world.gpio_write("PA5", state[0])

    def gpio_layer() -> None:
        state[0] ^= 1
        adapter.gpio_write("D13", state[0])

    res.update(per_call_ns({"gpio_direct": gpio_direct, "gpio_layer": gpio_layer}, between=clear))
    adapter.close()
    return res


def render(r: dict[str, float]) -> str:
    """The BENCHMARKS.md section for these figures."""
    over = (r["layer"] - r["direct"]) / 1000
    over_world = (r["layer"] - r["world"]) / 1000
    gpio_over = (r["gpio_layer"] - r["gpio_direct"]) / 1000
    verdict = "meets" if over <= 10 else "misses"
    lines = [
        "## Bus layer (`bench/bus.py`)",
        "",
        f"2-byte register read of the simulated BME280 (0xFA-0xFB) on `sim://nucleo-f401re`, best of {ROUNDS} "
        f"interleaved rounds of {N:,} calls. Baseline: calling the part model directly (pointer write + 2-byte read).",
        "",
        "| Path | per call | vs direct |",
        "| --- | --- | --- |",
        f"| direct: part model | {r['direct'] / 1000:.2f} us | 1.00x |",
        f"| simulated bus: fault check + transaction log | {r['world'] / 1000:.2f} us | "
        f"{r['world'] / r['direct']:.2f}x |",
        f"| layer: `adapter.i2c().read_register(0x76, 0xFA, 2)` | {r['layer'] / 1000:.2f} us | "
        f"{r['layer'] / r['direct']:.2f}x |",
        f"| GPIO direct: `world.gpio_write(\"PA5\", v)` | {r['gpio_direct'] / 1000:.2f} us | 1.00x |",
        f"| GPIO layer: `adapter.gpio_write(\"D13\", v)` (alias cache, safety) | {r['gpio_layer'] / 1000:.2f} us | "
        f"{r['gpio_layer'] / r['gpio_direct']:.2f}x |",
        "",
        f"Overhead of the layer over the direct call: **{over:.2f} us per transaction** "
        f"({over_world:.2f} us of it is the public API itself: validation, closed check, safety, error "
        f"tagging; the rest is the simulator's fault check and log), which {verdict} the <= 10 us target; "
        f"that is {over / WIRE_US * 100:.1f} % of the ~{WIRE_US:.0f} us the same read takes on a 400 kHz bus. "
        f"GPIO writes cost {gpio_over:.2f} us over the direct call (pin names are resolved once, then cached).",
    ]
    return "\n".join(lines)



def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print the Markdown section and (unless --no-write) store it in BENCHMARKS.md."""
    publish("bus", lambda: render(measure()), argv)


if __name__ == "__main__":
    main()
