"""A question naming two or more boards is answered by the table or note naming them side by side."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag import boards as rag_boards
from edge_agent.rag.boards import Together


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text)


def _kit(tag: str, pin: str) -> str:
    rows = "".join(f"| D{n} | {pin[:-2]}{n:02d} | header pin |\n" for n in range(2, 14))
    return (f"# Kit {tag.upper()} - board notes\n\n## Arduino header mapping\n\n| Header | MCU pin | Notes |\n"
            f"| --- | --- | --- |\n{rows}\nD11 is MOSI and D12 is MISO on this kit's Arduino header.\n")


@pytest.fixture
def library(tmp_path: Path) -> Path:
    _write(tmp_path, "kit-x100.md", _kit("x100", "PA07"))
    _write(tmp_path, "kit-y200.md", _kit("y200", "P1.13"))
    _write(tmp_path, "kit-z300.md", _kit("z300", "PB03"))
    _write(tmp_path, "generic-header.md",
           "# Generic notes - the Arduino header on every kit\n\nMany kits copy the header footprint; the pins "
           "behind each position differ, and so do the voltage levels of the boards.\n\n"
           "## Mapping comparison\n\n| Header | X100 | Y200 | Z300 |\n| --- | --- | --- | --- |\n"
           "| D10 (CS) | PA06 | P1.12 | PB02 |\n| D11 (MOSI) | PA07 | P1.13 | PB03 |\n| D12 (MISO) | PA08 | P1.14 "
           "| PB04 |\n\nThe Y200 runs at 1.8 V on request; see its notes.\n")
    return tmp_path


def test_the_table_naming_the_asked_boards_side_by_side_comes_first(library: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    rag = HardwareRag.load(library)
    for question in ("arduino D11 mosi on the x100 and the y200", "D11 mosi on x100, y200 and z300 compared"):
        assert len(rag.detect_boards(question)) >= 2
        first = rag.search(question)[0]
        assert (first.source, first.heading.split(" > ")[-1]) == ("generic-header.md", "Mapping comparison")
    # one board named: its own notes answer, the comparison does not take over
    assert rag.search("arduino D11 mosi on the x100")[0].source == "kit-x100.md"
    # without the rule each kit's own boosted pin map comes first
    monkeypatch.setattr(rag_boards.Together, "count", lambda self, text: 0)
    assert rag.search("arduino D11 mosi on the x100 and the y200")[0].source != "generic-header.md"


def test_boards_are_counted_where_one_line_names_them_together() -> None:
    names = {"kit-x100": ["x100", "kit x100"], "kit-y200": ["y200"], "nucleo-g071rb": ["g071rb", "g071"]}
    boards_named = Together(names).count
    assert boards_named("| Header | X100 | Y200 |\n| D11 | PA7 | P1.13 |") == 2
    assert boards_named("| Header | Kit-X100 | NUCLEO-G071RB / Y200 |") == 3
    # a board's own notes naming another board on a line of its own: one board per line
    assert boards_named("The X100 header.\nDifferences from the Y200: D0/D1 swap.") == 1
    assert boards_named("the x1000 and the y2000") == 0  # a longer name is another part
