"""The names of a pin table are kept per table text: a table met again (the same chip's table in another
board's file, under another title, at another line) gives exactly what parsing it afresh gives, with that
file's own source, heading and line numbers; its nearest heading still decides whether it is a connector."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import datasheet
from edge_agent.pins.datasheet import forget_tables, parse_aliases
from edge_agent.rag.files import read_text, scan

_TABLE = """| Signal | Pin | Notes |
| --- | --- | --- |
| LED_RED | PA5 | TIM2 CH1 |
| BUTTON | PC13 | EXTI13 |
| UART_TX | PA2 | USART2 TX |
"""

_CONNECTOR = """| No. | Pin | Type |
| --- | --- | --- |
| 1 | IO34 | I |
| 2 | IO35 | I |
| 3 | IO36 | I |
| 4 | IO39 | I |
"""


def _fresh(text: str, source: str, tag: str) -> tuple[list[datasheet.AliasEntry], list[datasheet.Problem]]:
    forget_tables()
    return parse_aliases(text, source, tag)


def test_a_table_met_again_gives_its_names_with_the_files_own_lines_and_heading() -> None:
    first = f"# Board one\n\n## Pins\n\n{_TABLE}"
    second = f"# Board two, revision B\n\nSome prose first.\n\nMore prose.\n\n## Board pins\n\n{_TABLE}"
    expected_first = _fresh(first, "one.md", "one")
    expected_second = _fresh(second, "two.md", "two")
    forget_tables()
    got_first = parse_aliases(first, "one.md", "one")
    got_second = parse_aliases(second, "two.md", "two")  # from the kept names
    assert got_first == expected_first
    assert got_second == expected_second
    assert {e.alias for e in got_second[0]} >= {"LED_RED", "BUTTON", "UART_TX"}
    assert {(e.source, e.heading) for e in got_second[0]} == {("two.md", "Board two, revision B > Board pins")}
    button_line = second.split("\n").index("| BUTTON | PC13 | EXTI13 |") + 1
    assert [e.line for e in got_second[0] if e.alias == "BUTTON"] == [button_line]


def test_the_nearest_heading_still_decides_a_connector() -> None:
    header = f"# Module\n\n## Header J1\n\n{_CONNECTOR}"
    plain = f"# Module\n\n## Strapping pins\n\n{_CONNECTOR}"
    forget_tables()
    parse_aliases(header, "m.md", "m")
    names_plain = {e.alias for e in parse_aliases(plain, "m.md", "m")[0]}
    names_header = {e.alias for e in parse_aliases(header, "m.md", "m")[0]}
    assert "J1-3" in names_header
    assert not any(n.startswith("J1-") for n in names_plain)
    assert names_plain == {e.alias for e in _fresh(plain, "m.md", "m")[0]}


def test_a_table_reporting_a_problem_names_each_files_own_line(caplog: pytest.LogCaptureFixture) -> None:
    broken = _TABLE + "| EXTRA | PB1 | a | b |\n"
    forget_tables()
    with caplog.at_level(logging.WARNING):
        _, first = parse_aliases(f"# A\n\n{broken}", "a.md", "a")
        _, second = parse_aliases(f"# B\n\nprose\n\n{broken}", "b.md", "b")
    assert [p.message.split(":")[0] for p in first] == ["line 8"]
    assert [p.message.split(":")[0] for p in second] == ["line 10"]
    assert [p.source for p in second] == ["b.md"]


def test_every_datasheet_parses_the_same_with_kept_tables() -> None:
    """Over the bundled datasheets and the shared corpus, each file read twice in a row after every other
    file (so most of its tables come from the kept names) gives what a fresh parse of it gives."""
    roots = [bundled_datasheets_dir()]
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "datasheets"
    if shared.is_dir():
        roots.append(shared)
    texts = [(f.rel, f.board, read_text(f)[0] or "") for root in roots for f in scan(root)[0] if f.kind == "text"]
    fresh = [_fresh(text, rel, board or "generic") for rel, board, text in texts]
    forget_tables()
    for rel, board, text in texts:
        parse_aliases(text, rel, board or "generic")
    again = [parse_aliases(text, rel, board or "generic") for rel, board, text in texts]
    assert again == fresh
