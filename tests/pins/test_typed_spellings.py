"""Every pin of every board file, typed the ways a field engineer types it at 2 a.m. (case, spaces, hyphens and
underscores, a leading zero, the header or numbering written first: PA_5, PA05, pa5, D 13, Arduino D13, GPIO 17,
GPIO_17, BCM 17, digital 13, analog 3, J8 pin 11, J8:11, physical pin 11, CN10-11), resolves to that pin: never to
another one, and never unknown."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from edge_agent.errors import PinError
from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import Board, PinIndex
from edge_agent.rag import pin_index_for


def _typed(board: Board) -> Iterator[tuple[str, str]]:
    """(spelling, pin) for every pin of `board`."""
    for p in board.pins:
        if m := re.fullmatch(r"P([A-L])(\d+)", p.name):
            port, n = m.groups()
            yield from ((s, p.name) for s in (f"P{port}_{n}", f"P{port}{int(n):02d}", f"p{port.lower()}{n}",
                                               f"P{port}-{n}", f"P{port}.{n}"))
        if m := re.fullmatch(r"GPIO(\d+)", p.name):
            n = m.group(1)
            yield from ((s, p.name) for s in (f"GPIO {n}", f"GPIO_{n}", f"gpio{n}", f"GPIO-{n}"))
            if board.integers == "bcm":
                yield from ((s, p.name) for s in (f"BCM{n}", f"BCM {n}", f"bcm_{n}", n))
            if board.integers == "gpio":
                yield from ((s, p.name) for s in (f"IO{n}", f"io {n}", n))
        if m := re.fullmatch(r"GP(\d+)", p.name):
            n = m.group(1)
            yield from ((s, p.name) for s in (f"GP {n}", f"gp{n}", f"GPIO{n}", f"GPIO {n}", n))
        for h in p.headers:
            if m := re.fullmatch(r"([DA])(\d+)", h):
                kind, n = m.groups()
                yield from ((s, p.name) for s in (h, h.lower(), f"{kind} {n}", f"{kind}_{n}", f"Arduino {h}"))
                if kind == "A":
                    yield from ((s, p.name) for s in (f"analog {n}", f"analog pin {n}", f"Analogue input {n}"))
                if kind == "D" and board.integers == "arduino":
                    yield from ((s, p.name) for s in (n, f"digital pin {n}", f"digital {n}", f"Digital{n}",
                                                       f"digital #{n}"))
                    if not any(re.fullmatch(rf"[A-Z]+\d*-{n}", h) for q in board.pins for h in q.headers):
                        yield f"pin {n}", p.name  # where no connector has a place n (a Nucleo's CN7-13 has one)
            elif m := re.fullmatch(r"([A-Za-z]+\d*)-(\d+)", h):
                conn, n = m.groups()
                yield from ((s, p.name) for s in (h, f"{conn}:{n}", f"{conn.lower()}_{n}", f"{conn} pin {n}",
                                                   f"{conn}-0{n}"))
                if board.physical_header and conn.lower() == board.physical_header.lower():
                    yield from ((s, p.name) for s in (f"pin {n}", f"BOARD{n}", f"physical pin {n}"))


def _misses(index: PinIndex) -> list[tuple[str, str, str, str]]:
    out = []
    for board_id in index.board_ids():
        board = index.board(board_id)
        assert board is not None
        for spelled, pin in _typed(board):
            try:
                got = index.resolve(board_id, spelled).name
            except PinError as exc:
                got = type(exc).__name__
            if got != pin:
                out.append((board_id, spelled, pin, got))
    return out


def test_every_board_file_pin_typed_any_usual_way_is_that_pin() -> None:
    assert _misses(pin_index_for(bundled_datasheets_dir())) == []


def test_a_datasheet_only_boards_pins_typed_otherwise(shared_corpus: Path) -> None:
    index = pin_index_for(shared_corpus)
    for spelled in ("P0.13", "P0_13", "p0.13", "LED1"):  # the nRF port.pin, with an underscore, in lower case
        assert index.resolve("nrf52840dk", spelled).name == "P0.13"
    for spelled in ("D13", "d13", "D 13", "Arduino D13"):  # the Arduino header's D13 on the DK
        assert index.resolve("nrf52840dk", spelled).name == "P1.15"
    for spelled in ("PL5", "PL_5", "pl05", "D44", "Arduino D44", "44"):  # the Mega's second pair of a table row
        assert index.resolve("arduino-mega2560", spelled).name == "PL5"
