""""pin N" on a board numbered by pin number whose connectors also number their places (a Nucleo's D13 and its
morpho rows CN7-13 and CN10-13, an ESP32 DevKitC's GPIO13 and its headers J2-13 and J3-13) is refused with every
pin it could be, never answered with one of them; where only one numbering has a place N (an Uno's pin 13 is D13)
it resolves, and "digital pin N" always names the board's pin number. Every board file, both datasheet sets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edge_agent.errors import AmbiguousPinError, PinError, UnknownPinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import PinIndex
from edge_agent.rag import pin_index_for


def _meanings(index: PinIndex, board_id: str, n: int) -> tuple[set[str], set[str]]:
    """(pins, supply positions) "pin n" could be, read from the board file alone."""
    board = index.board(board_id)
    assert board is not None
    pins = {p.name for p in board.pins if p.number == n}
    pins |= {p.name for p in board.pins for h in p.headers if re.fullmatch(rf"[A-Z]+\d*-{n}", h)}
    supplies = {pos for pos in board.power if re.fullmatch(rf"[A-Z]+\d*-{n}", pos)}
    return pins, supplies


def _check(index: PinIndex) -> list[tuple[str, int, str]]:
    wrong = []
    for board_id in index.board_ids():
        board = index.board(board_id)
        assert board is not None
        if board.physical_header:
            continue  # a Pi's or a Pico's "pin 11" is its one header's place 11
        for n in range(0, 41):
            pins, supplies = _meanings(index, board_id, n)
            try:
                got = index.resolve(board_id, f"pin {n}").name
            except AmbiguousPinError as exc:
                if len(pins) + len(supplies) < 2 or exc.pins != pins or {p for _, p in exc.choices} != pins:
                    wrong.append((board_id, n, f"refused with {sorted(exc.pins)}"))
                for spelled, pin in exc.choices:  # each choice is a name to type that gives its pin
                    if index.resolve(board_id, spelled).name != pin:
                        wrong.append((board_id, n, f"choice {spelled} is not {pin}"))
                continue
            except PinError:
                # the board's number alone must answer; a connector's place alone may stay unknown (CN10-26 is
                # PB15 but the board file does not say what CN7-26 is, so "pin 26" is no sure CN10-26)
                if any(p.number == n for p in board.pins) and len(pins) + len(supplies) < 2:
                    wrong.append((board_id, n, "refused"))
                continue
            if len(pins) + len(supplies) != 1 or got not in pins:
                wrong.append((board_id, n, f"answered {got}"))
            number = next((p.name for p in board.pins if p.number == n), None)
            if number is not None and index.resolve(board_id, f"digital pin {n}").name != number:
                wrong.append((board_id, n, "digital pin"))
    return wrong


def test_pin_n_with_several_numberings_is_refused_on_the_bundled_datasheets() -> None:
    assert _check(pin_index_for(bundled_datasheets_dir())) == []


def test_pin_n_with_several_numberings_is_refused_on_the_shared_corpus(shared_corpus: Path) -> None:
    assert _check(pin_index_for(shared_corpus)) == []


def test_the_refusal_names_what_to_type() -> None:
    index = pin_index_for(bundled_datasheets_dir())
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("nucleo-f401re", "pin 13")
    assert err.value.choices == [("D13", "PA5"), ("CN7-13", "PA13"), ("CN10-13", "PA6")]
    with pytest.raises(AmbiguousPinError) as err:
        index.resolve("nucleo-f401re", "pin 16")  # CN10-16 is PB12, CN7-16 the 3.3 V supply
    assert err.value.choices == [("CN10-16", "PB12")] and err.value.supplies == [("CN7-16", "+3V3")]
    assert "CN7-16 (+3V3, a supply or ground pin)" in str(err.value)
    with pytest.raises(UnknownPinError) as unknown:
        index.resolve("nucleo-f401re", "pin 20")  # ground on both morpho rows
    assert unknown.value.power == "GND"
    assert index.resolve("nucleo-f401re", "digital pin 13").name == "PA5"
    assert index.resolve("nucleo-f401re", "13").name == "PA5"  # a bare number is the board's own numbering
    assert index.resolve("arduino-uno", "pin 13").name == "PB5"
    assert index.resolve("rpi-4b", "pin 13").name == "GPIO27"
