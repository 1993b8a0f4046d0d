"""Every board file against the vendor's own pin tables, kept as data in tests/pins/data (not the board
files checked against themselves)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from edge_agent import pins

VENDOR: dict[str, Any] = tomllib.loads((Path(__file__).parent / "data" / "vendor_pinouts.toml").read_text())


def _tables(section: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for key, table in VENDOR.items():
        if section in table:
            for board in table.get("boards", [key]):
                out.append((board, table[section]))
    return out


def test_every_board_file_is_covered_by_a_vendor_table() -> None:
    covered = {board for board, _ in _tables("positions")}
    assert covered == set(pins.list_boards())


@pytest.mark.parametrize(("board", "positions"), _tables("positions"), ids=lambda x: x if isinstance(x, str) else "")
def test_header_positions_match_the_vendor_table(board: str, positions: dict[str, str]) -> None:
    b = pins.get_board(board)
    wrong = []
    for position, want in positions.items():
        if want.startswith("power:"):
            got = b.power.get(position)
            if got is None or got.upper() != want[6:].upper():
                wrong.append(f"{position}: board file has {got or 'no power entry'}, vendor says {want}")
            continue
        holders = [p.name for p in b.pins if position in p.headers]
        if holders != [want]:
            wrong.append(f"{position}: board file has {holders or 'nothing'}, vendor says {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("board", "functions"), _tables("functions"), ids=lambda x: x if isinstance(x, str) else "")
def test_pin_functions_match_the_vendor_table(board: str, functions: dict[str, list[str]]) -> None:
    b = pins.get_board(board)
    for pin, wanted in functions.items():
        assert set(wanted) <= set(b.pin(pin).functions), (board, pin, b.pin(pin).functions)
        for function in wanted:
            assert pins.resolve(board, function).name == pin


def test_no_pi_5_pin_claims_a_pwm_channel_rp1_does_not_have() -> None:
    b = pins.get_board("rpi-5")
    pwm = {f for p in b.pins for f in p.functions if f.startswith("PWM")}
    assert pwm <= {"PWM0_CHAN0", "PWM0_CHAN1", "PWM0_CHAN2", "PWM0_CHAN3"}, pwm


@pytest.mark.parametrize(("board", "buses"), _tables("buses"), ids=lambda x: x if isinstance(x, str) else "")
def test_default_bus_pins_match_the_vendor_table(board: str, buses: dict[str, str]) -> None:
    b = pins.get_board(board)
    for role, pin in buses.items():
        bus, name = role.split(".")
        assert b.buses[bus][name] == pin, (board, role)
