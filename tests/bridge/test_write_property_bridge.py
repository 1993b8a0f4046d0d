"""Property, on the real firmware (host build) behind ``bridge://`` on a pty: no transaction changes a register
outside the policy.

The firmware's own part models are the truth: its 24C02 at 0x50 wraps page writes inside 8-byte pages and its
BME280 at 0x76 takes register/value pairs. After each batch of random transactions the EEPROM and the BME280's
writable control registers are read back (reads are always allowed) and every register that changed must be
inside an allow-list entry for its address.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_agent.bus import Adapter, open_adapter
from edge_agent.config import AdapterSafety, SafetyConfig
from edge_agent.errors import BusError

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _snapshot(adapter: Adapter) -> dict[tuple[int, int], int]:
    bus = adapter.i2c()
    eeprom = bus.read_register(0x50, 0x00, 128) + bus.read_register(0x50, 0x80, 128)
    ctrl = bus.read_register(0x76, 0xF2, 4)  # ctrl_hum, status, ctrl_meas, config
    return {**{(0x50, r): v for r, v in enumerate(eeprom)},
            **{(0x76, 0xF2 + i): v for i, v in enumerate(ctrl) if i != 1}}


@pytest.fixture
def firmware_url(host_fw: Any) -> Iterator[str]:
    yield f"bridge://{host_fw.path}?timeout_scale=5"


@st.composite
def rules(draw: st.DrawFn) -> list[str]:
    out: list[str] = []
    for lo, hi in draw(st.lists(st.tuples(st.integers(0, 0xFF), st.integers(0, 12)), max_size=3)):
        out.append(f"0x50:0x{lo:02X}-0x{min(lo + hi, 0xFF):02X}")
    for lo, hi in draw(st.lists(st.tuples(st.integers(0xF2, 0xF5), st.integers(0, 3)), max_size=2)):
        out.append(f"0x76:0x{lo:02X}-0x{min(lo + hi, 0xF5):02X}")  # never 0xE0: a reset rewrites them all
    return out


TRANSACTION = st.tuples(
    st.sampled_from([0x50, 0x76]), st.sampled_from(["write", "write_register", "write_read"]),
    st.sampled_from([0xE0, 0xF2, 0xF4, 0xF5, 0x00, 0x06, 0x7E, 0xFE]), st.binary(min_size=1, max_size=12))


@SETTINGS
@given(allowed=rules(), ops=st.lists(TRANSACTION, min_size=1, max_size=5))
def test_the_firmware_changes_no_register_outside_the_policy(firmware_url: str, allowed: list[str],
                                                             ops: list[tuple[int, str, int, bytes]]) -> None:
    adapter = open_adapter(firmware_url, safety=SafetyConfig(adapters={"bridge": AdapterSafety(writable_i2c=allowed)}))
    try:
        before = _snapshot(adapter)
        bus = adapter.i2c()
        for address, method, register, data in ops:
            try:
                if method == "write":
                    bus.write(address, bytes([register]) + data)
                elif method == "write_register":
                    bus.write_register(address, register, data)
                else:
                    bus.write_read(address, bytes([register]) + data[:3], 1)
            except BusError:
                pass
        after = _snapshot(adapter)
    finally:
        adapter.close()
    changed = [key for key in before if before[key] != after[key]]

    def ok(address: int, register: int) -> bool:
        for rule in allowed:
            addr, _, span = rule.partition(":")
            lo, _, hi = span.partition("-")
            if int(addr, 16) == address and int(lo, 16) <= register <= int(hi, 16):
                return True
        return False

    assert all(ok(a, r) for a, r in changed), [(hex(a), hex(r)) for a, r in changed if not ok(a, r)]
