"""Property: no transaction writes a byte outside the policy, on every backend and through the trace wrapper.

Random allow-lists and random transactions (every I2C method, random payloads) go through each adapter with
its vendor library faked at the lowest boundary, exactly as the contract suite does. The truth comes from the
register-level part models behind the fakes: every byte a part stores is recorded with the register it lands
in (page wrap, pointer wrap at the end of a register file and register/value pairs included, as the parts do
it), and each must be inside an allow-list entry for its address. Nothing here uses the policy's own reading
of a transaction. SPI transfers and GPIO changes are checked the same way at the vendor seam.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.bus import Adapter, open_adapter
from edge_agent.bus.sim.world import SimWorld
from edge_agent.config import AdapterSafety, SafetyConfig
from edge_agent.errors import BusError

#: Parts on the first bus of every world: the bench's BME280 (0x76, register/value pairs) and 24C02 (0x50,
#: 8-byte pages that wrap), plus an MCP23017 (register file wraps after 0x15), a PCA9685 (256 registers) and a
#: 24C32 (two-byte word addresses, 32-byte pages) added here.
EXTRA_PARTS: list[tuple[str, int, dict[str, Any]]] = [
    ("mcp23017", 0x20, {}),
    ("pca9685", 0x40, {}),
    ("24c02", 0x57, {"size": 4096, "page_size": 32, "address_bytes": 2}),
]
ONE_BYTE = (0x20, 0x40, 0x50, 0x76)
TWO_BYTE = (0x57,)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _prepare(world: SimWorld, bus: int | None = None) -> None:
    for kind, address, params in EXTRA_PARTS:
        world.attach_i2c(kind, address, bus=bus, params=params)
    for dev in world.i2c[bus if bus is not None else world.i2c_buses[0]].values():
        dev.busy_polls = 0
        if hasattr(dev, "params") and hasattr(dev.params, "write_cycle_polls"):
            object.__setattr__(dev.params, "write_cycle_polls", 0)  # no tWR NACKs: every write reaches the part


@contextmanager
def recording(world: SimWorld, bus: int) -> Iterator[list[tuple[int, int]]]:
    """(address, register) of every byte a part on ``bus`` stores while the block runs."""
    stored: list[tuple[int, int]] = []
    patched = []
    for address, dev in world.i2c[bus].items():
        original = getattr(dev, "store", None)
        if original is None:
            continue

        def store(register: int, value: int, *, _a: int = address, _orig: Callable[..., None] = original) -> None:
            stored.append((_a, register))
            _orig(register, value)

        dev.store = store  # type: ignore[method-assign]
        patched.append(dev)
    try:
        yield stored
    finally:
        for dev in patched:
            del dev.store


# --- allow-lists and transactions ------------------------------------------------------------------------------

def _range(width: int) -> st.SearchStrategy[tuple[int, int]]:
    top = 0xFF if width == 1 else 0x0FFF
    return st.tuples(st.integers(0, top), st.integers(0, 24)).map(lambda t: (t[0], min(t[0] + t[1], top)))


@st.composite
def allow_lists(draw: st.DrawFn) -> list[str]:
    rules: list[str] = []
    for address in ONE_BYTE + TWO_BYTE:
        width = 2 if address in TWO_BYTE else 1
        kind = draw(st.sampled_from(["none", "ranges", "ranges", "whole"]))
        if kind == "whole":
            rules.append(f"0x{address:02X}")
        elif kind == "ranges":
            if address == 0x76:  # soft reset (0xE0) rewrites every register: allowed only as a whole-part rule
                ranges = draw(st.lists(st.tuples(st.integers(0xF2, 0xF5), st.integers(0, 3)).map(
                    lambda t: (t[0], min(t[0] + t[1], 0xF5))), min_size=1, max_size=2))
            else:
                ranges = draw(st.lists(_range(width), min_size=1, max_size=3))
            digits = 2 * width
            rules += [f"0x{address:02X}:0x{a:0{digits}X}-0x{b:0{digits}X}" for a, b in ranges]
    return rules


def _register(address: int) -> st.SearchStrategy[int]:
    if address == 0x76:
        return st.sampled_from([0xE0, 0xF2, 0xF3, 0xF4, 0xF5, 0xD0, 0xFF])
    if address in TWO_BYTE:
        return st.integers(0, 0x0FFF)
    return st.integers(0, 0xFF)


@st.composite
def transactions(draw: st.DrawFn) -> tuple[str, int, Any]:
    address = draw(st.sampled_from(ONE_BYTE + TWO_BYTE))
    method = draw(st.sampled_from(["write", "write_register", "write_read", "read_register"]))
    data = draw(st.binary(min_size=1, max_size=40))
    if address == 0x76 and method == "write" and draw(st.booleans()):
        # register/value pairs aimed at the BME280, often naming registers inside an allowed range first
        pairs = draw(st.lists(st.tuples(_register(0x76), st.integers(0, 0xFF)), min_size=1, max_size=4))
        data = bytes(b for pair in pairs for b in pair)
    width = draw(st.sampled_from([1, 2])) if address in TWO_BYTE else 1
    register = draw(_register(address)) % (1 << (8 * width))
    return method, address, (data, register, width, draw(st.integers(1, 4)))


def _run(adapter: Adapter, bus: int, method: str, address: int, args: Any) -> None:
    data, register, width, n = args
    port = adapter.i2c(bus)
    try:
        if method == "write":
            port.write(address, data)
        elif method == "write_register":
            port.write_register(address, register, data[:32], register_width=width)
        elif method == "write_read":
            port.write_read(address, data[:8], n)
        else:
            port.read_register(address, register, n, register_width=width)
    except BusError:
        pass  # refused (WriteRefusedError is a BusError) or NACKed: either way, what was stored is checked


def _allowed(rules: list[str], address: int, register: int) -> bool:
    for rule in rules:
        addr, _, regs = rule.partition(":")
        if int(addr, 16) != address:
            continue
        if not regs:
            return True
        lo, _, hi = regs.partition("-")
        if int(lo, 16) <= register <= int(hi or lo, 16):
            return True
    return False


def _check(adapter: Adapter, world: SimWorld, bus: int, rules: list[str], ops: list[tuple[str, int, Any]]) -> None:
    with recording(world, bus) as stored:
        for method, address, args in ops:
            _run(adapter, bus, method, address, args)
    outside = [(a, r) for a, r in stored if not _allowed(rules, a, r)]
    assert not outside, f"stored outside {rules}: {[(hex(a), hex(r)) for a, r in outside]}"


# --- one property per backend ----------------------------------------------------------------------------------

def _policy(scheme: str, rules: list[str]) -> SafetyConfig:
    return SafetyConfig(adapters={scheme: AdapterSafety(writable_i2c=rules)})


def _check_backend(world: SimWorld, bus: int, url: str, scheme: str, rules: list[str],
                   ops: list[tuple[str, int, Any]]) -> None:
    """Open ``url`` under the allow-list ``rules`` and check every transaction of ``ops`` against ``world``."""
    if 0x20 not in world.i2c[bus]:
        _prepare(world, bus)
    adapter = open_adapter(url, safety=_policy(scheme, rules))
    try:
        _check(adapter, world, bus, rules, ops)
    finally:
        adapter.close()


@pytest.mark.parametrize("url", ["sim://nucleo-f401re", "trace+sim://nucleo-f401re"])
@SETTINGS
@given(rules=allow_lists(), ops=st.lists(transactions(), min_size=1, max_size=6))
def test_simulator_stores_nothing_outside_the_policy(url: str, rules: list[str],
                                                     ops: list[tuple[str, int, Any]]) -> None:
    adapter = open_adapter(url, safety=_policy("sim", rules))
    inner = getattr(adapter, "inner", adapter)
    world: SimWorld = inner.world
    bus = world.i2c_buses[0]
    _prepare(world, bus)
    try:
        _check(adapter, world, bus, rules, ops)
    finally:
        adapter.close()


@pytest.mark.parametrize("url", ["linux://?i2c=1", "trace+linux://?i2c=1"])
@SETTINGS
@given(rules=allow_lists(), ops=st.lists(transactions(), min_size=1, max_size=6))
def test_linux_stores_nothing_outside_the_policy(linux_env: Any, url: str, rules: list[str],
                                                 ops: list[tuple[str, int, Any]]) -> None:
    _check_backend(linux_env.world, 1, url, "linux", rules, ops)


@SETTINGS
@given(rules=allow_lists(), ops=st.lists(transactions(), min_size=1, max_size=6))
def test_aardvark_stores_nothing_outside_the_policy(aardvark_env: Any, rules: list[str],
                                                    ops: list[tuple[str, int, Any]]) -> None:
    _check_backend(aardvark_env.world, 0, "aardvark://2237-170206", "aardvark", rules, ops)


@SETTINGS
@given(rules=allow_lists(), ops=st.lists(transactions(), min_size=1, max_size=6))
def test_ftdi_stores_nothing_outside_the_policy(ftdi_env: Any, rules: list[str],
                                                ops: list[tuple[str, int, Any]]) -> None:
    _check_backend(ftdi_env.world, 0, "ftdi://ftdi:232h/1", "ftdi", rules, ops)


# --- SPI and GPIO at the vendor seam ---------------------------------------------------------------------------

@SETTINGS
@given(allowed=st.sets(st.sampled_from(["0.0", "0.1"])), picks=st.lists(
    st.tuples(st.sampled_from([0, 1]), st.binary(min_size=1, max_size=16)), min_size=1, max_size=6))
def test_spi_transfers_reach_only_allowed_chip_selects(linux_env: Any, allowed: set[str],
                                                        picks: list[tuple[int, bytes]]) -> None:
    cfg = SafetyConfig(adapters={"linux": AdapterSafety(writable_spi=sorted(allowed))})
    adapter = open_adapter("linux://?spi=0.0,0.1", safety=cfg)
    before = len(linux_env.world.log)
    try:
        for cs, data in picks:
            try:
                adapter.spi(0, cs).transfer(data)
            except BusError:
                pass
    finally:
        adapter.close()
    reached = {f"{t.bus}.{t.cs}" for t in linux_env.world.log[before:] if type(t).__name__ == "SPITransfer"}
    assert reached <= allowed


GPIO_CALLS = st.sampled_from([("write", 0), ("write", 1), ("mode", "in"), ("mode", "out"), ("read_pull", "down")])


@SETTINGS
@given(entries=st.sets(st.sampled_from(["LD2", "D7", "PA10", "13", "red_led", "B1"]), max_size=3),
       calls=st.lists(st.tuples(st.sampled_from(["PA5", "D13", "PA8", "D2", "PB3", "PC13"]), GPIO_CALLS),
                      min_size=1, max_size=6))
def test_gpio_changes_reach_only_allowed_lines(entries: set[str], calls: list[tuple[str, tuple[str, Any]]]) -> None:
    """Levels, directions and pulls change only on lines an entry names (by any spelling of the same pin)."""
    cfg = SafetyConfig(adapters={"sim": AdapterSafety(writable_gpio=sorted(entries))})
    adapter = open_adapter("sim://nucleo-f401re", safety=cfg)
    # the pins the entries name, by the board file: LD2/13/red_led = PA5, D7 = PA8, PA10 = D2, B1 = PC13
    allowed = {{"LD2": "PA5", "13": "PA5", "red_led": "PA5", "D7": "PA8", "PA10": "PA10", "B1": "PC13"}[e]
               for e in entries}
    pins = {"PA5": "PA5", "D13": "PA5", "PA8": "PA8", "D2": "PA10", "PB3": "PB3", "PC13": "PC13"}
    world = adapter.world  # type: ignore[attr-defined]
    before = len(world.log)
    try:
        for pin, (kind, arg) in calls:
            try:
                if kind == "write":
                    adapter.gpio_write(pin, arg)
                elif kind == "mode":
                    adapter.gpio_mode(pin, arg)
                else:
                    adapter.gpio_mode(pin, "in", arg)
                    adapter.gpio_read(pin)
            except BusError:
                assert pins[pin] not in allowed or pin == "PC13"  # refused, or the button that cannot drive
    finally:
        adapter.close()
    changed = {t.pin for t in world.log[before:] if type(t).__name__ in ("GPIOWrite", "GPIOMode")}
    assert changed <= allowed
