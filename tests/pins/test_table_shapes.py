"""Every pin table in the shared corpus and the bundled datasheets, whatever its shape, gives a name for
every pin it lists: one (name, pin) pair per row, two side by side (``| D7 | PH4 | D44 | PL5 |``), a
table without leading pipes. The expectation is read from the tables themselves with a broad pin
pattern, not from a list of names: once the parser takes a column of a table as its pin column, every
pin-like cell of that column, and of every column headed the same way, must yield a name on its line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.pins import parse_aliases
from edge_agent.rag.files import read_text, scan

# Any MCU pin spelling of the corpus' chips: ports A to L (the ATmega2560 has ports up to L), nRF
# port.pin, GPIOn, GPn, IOn. Broader than the parser's own pattern on purpose.
_PIN = re.compile(r"P[A-Z]\d{1,2}|P\d\.\d{1,2}|GPIO\d{1,2}|GP\d{1,2}|IO\d{1,2}", re.IGNORECASE)
_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")


def _roots() -> list[Path]:
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "datasheets"
    return [bundled_datasheets_dir(), *([shared] if shared.is_dir() else [])]


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return [c.strip().strip("`*") for c in s.split("|")]


def _tables(text: str) -> list[tuple[list[str], list[tuple[int, list[str]]]]]:
    """(header cells, [(1-based line, cells)]) of every Markdown table, fenced code excluded."""
    lines = text.split("\n")
    out = []
    fence = False
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("```"):
            fence = not fence
        elif not fence and "|" in lines[i] and i + 1 < len(lines) and _SEP.match(lines[i + 1].strip()):
            rows = []
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                rows.append((j + 1, _cells(lines[j])))
                j += 1
            out.append((_cells(lines[i]), rows))
            i = j
            continue
        i += 1
    return out


def _pin_cell(cell: str) -> str | None:
    value = re.sub(r"\s*\([^)]*\)\s*$", "", cell).strip()
    return value if _PIN.fullmatch(value) else None


def _files() -> list[tuple[str, str, str]]:
    out = []
    for root in _roots():
        for f in scan(root)[0]:
            text = read_text(f)[0]
            if text and f.board:
                out.append((f"{root.parent.name}/{f.rel}", f.board, text))
    return out


def _id(x: object) -> str:
    return str(x) if "/" in str(x) and "\n" not in str(x) else ""


@pytest.mark.parametrize(("name", "tag", "text"), _files(), ids=_id)
def test_every_pin_cell_of_a_pin_table_column_and_its_twins_yields_a_name(name: str, tag: str, text: str) -> None:
    entries, _ = parse_aliases(text, name, tag)
    by_line: dict[int, set[str]] = {}
    for e in entries:
        if e.kind == "table":
            by_line.setdefault(e.line, set()).add(e.value.upper())
    missing = []
    for header, rows in _tables(text):
        used_headers = set()
        for col, head in enumerate(header):
            pins_here = {line: _pin_cell(cells[col]) for line, cells in rows if col < len(cells)}
            if any(p and p.upper() in by_line.get(line, ()) for line, p in pins_here.items()):
                used_headers.add(head.lower())
        for col, head in enumerate(header):
            if head.lower() not in used_headers:
                continue
            for line, cells in rows:
                pin = _pin_cell(cells[col]) if col < len(cells) and len(cells) == len(header) else None
                if pin and pin.upper() not in by_line.get(line, set()):
                    missing.append(f"line {line}: {pin} (column {head!r}, row {cells})")
    assert not missing, missing


def test_a_row_with_two_name_pin_pairs_gives_both(tmp_path: Path) -> None:
    text = ("## Port map\n\n| Arduino | AVR pin | Arduino | AVR pin |\n| --- | --- | --- | --- |\n"
            "| D7 | PH4 | D44 | PL5 |\n| D8 | PH5 | D49 | PL0 |\n")
    entries, problems = parse_aliases(text, "mega.md", "mega")
    assert {(e.alias, e.value) for e in entries} == {("D7", "PH4"), ("D44", "PL5"), ("D8", "PH5"), ("D49", "PL0")}
    assert not problems


def test_the_mega_port_map_gives_every_pair(shared_corpus: Path) -> None:
    from edge_agent.rag import pin_index_for

    index = pin_index_for(shared_corpus)
    for name, pin in (("D44", "PL5"), ("D7", "PH4"), ("D49", "PL0"), ("A8 (62)", "PK0"), ("D22", "PA0")):
        got = index.resolve("arduino-mega2560", name.split(" ")[0])
        assert got.raw == pin or got.name == pin, (name, got)

