"""Pin names in datasheets: `## Pin Aliases` sections and pin tables, parsed into alias entries.

Pure text parsing (no files, no index): the datasheet index feeds it each file's text and keeps the
entries; the pin index (:mod:`edge_agent.pins.index`) turns them into names.

Alias sections. Accepted forms inside a section headed `Pin Aliases`, `Pin Alias` or `Pins` (any heading level; the
section ends at the next heading of the same or a higher level):

* ``name: value`` or ``name = value`` lines, with list bullets, backticks and bold markup stripped;
* Markdown (or plain ``|``) tables whose header row names an alias column (``alias``, ``name``,
  ``label``, ``signal``) and a pin column (``pin``, ``gpio``, ``value``, ``target``), in any order.

A prose line in the section that says the values are physical header pin numbers switches bare
integers in that section from the board's native numbering to physical header positions.

Pin tables. Outside alias sections, in files that belong to a board or part (not generic files), a
Markdown table (a header row, a ``---`` separator row, then rows; leading ``|`` optional) is a pin
table when

* one column holds native pin names: its header names a pin, GPIO, BCM, port or MCU column and most
  of its cells are pin names (``PA5``, ``P0.13``, ``GPIO17``, ``GP25``, ``IO2``, ``PB5``; a bare
  number counts in a ``BCM``/``GPIO`` column and means ``GPIO<n>``), and
* other columns hold names for those pins: their header says alias, label, name, signal, Arduino,
  constant, component, relay, input, output, LED, button, channel, node or motor, or is exactly
  ``Use`` or ``Function``.

Every short name in a name column (at most four words; a trailing ``(note)`` is dropped and
``LED1 / Green`` gives two names) becomes an entry for the row's pin, cited with the table's heading.
Physical-position columns, notes, directions and descriptions are not names. A table written twice
side by side (``| Arduino | AVR pin | Arduino | AVR pin |``) is read as two tables. A row with a
different number of cells from its header is reported and skipped.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

log = logging.getLogger(__name__)

_SECTION = re.compile(r"^(#{1,6})\s+pins?(?:\s+alias(?:es)?)?\s*#*\s*$", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})\s+\S")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_KEY_OK = re.compile(r"^[A-Za-z0-9_.+/\- ]{1,48}$")
_PHYSICAL = re.compile(r"\bphysical\b|\bheader pin (?:number|position)s?\b|\bboard numbering\b", re.IGNORECASE)
_ALIAS_COLS = ("alias", "name", "label", "signal")
_PIN_COLS = ("pin", "gpio", "value", "target", "pin name")


@dataclass(frozen=True)
class AliasEntry:
    """One alias line: `alias` names `value` on boards answering to `tag` (None = every board)."""

    tag: str | None
    alias: str
    value: str
    source: str
    line: int
    numbering: str = "native"  # "native" (the board's integer convention) or "physical" (header positions)
    kind: str = "alias"  # "alias" (a pin-alias section) or "table" (a pin table)
    heading: str = ""  # heading of the section or table it comes from


@dataclass(frozen=True)
class Problem:
    """A warning about one datasheet (kind "alias" for a malformed alias line or pin-table row)."""

    source: str
    kind: str
    message: str


def _problem(source: str, kind: str, message: str) -> Problem:
    log.warning("datasheet %s: %s", source, message)
    return Problem(source, kind, message)


def board_tag(rel: str) -> str | None:
    """Board tag of a file: its lowercased stem; None for generic files (generic*, anything under _generic/)."""
    parts = rel.split("/")
    stem = parts[-1].rsplit(".", 1)[0].lower()
    if "_generic" in (p.lower() for p in parts[:-1]):
        return None
    if stem == "generic" or stem.startswith(("generic_", "generic-")):
        return None
    return stem


def _clean(cell: str) -> str:
    cell = cell.strip()
    cell = cell.replace("`", "").replace("**", "").replace("__", "")
    return cell.strip()


def _strip_comment(value: str) -> str:
    value = re.sub(r"\s+#.*$", "", value)  # trailing "# comment"
    value = re.sub(r"\s*\([^)]*\)\s*$", "", value)  # trailing "(note)"
    return value.strip()


def parse_aliases(text: str, source: str, tag: str | None) -> tuple[list[AliasEntry], list[Problem]]:
    """Parse every pin-alias section of a document into entries plus problems for malformed lines."""
    entries: list[AliasEntry] = []
    problems: list[Problem] = []
    lines = text.split("\n")
    sections: list[tuple[int, int]] = []  # alias sections (heading line, end): their tables are alias tables
    i = 0
    while i < len(lines):
        m = _SECTION.match(lines[i].strip())
        if not m:
            i += 1
            continue
        level = len(m.group(1))
        start = i + 1
        end = start
        in_fence = False
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped.startswith("```"):
                in_fence = not in_fence
            elif not in_fence:
                h = _HEADING.match(stripped)
                if h and len(h.group(1)) <= level:
                    break
            end += 1
        _parse_section(lines, start, end, source, tag, entries, problems)
        sections.append((start - 1, end))
        i = end
    if tag is not None:
        _parse_tables(lines, sections, source, tag, entries, problems)
    return entries, problems


def _parse_section(lines: list[str], start: int, end: int, source: str, tag: str | None,
                   entries: list[AliasEntry], problems: list[Problem]) -> None:
    section = lines[start:end]
    heading = lines[start - 1].strip().lstrip("#").strip() if start > 0 else ""
    numbering = "physical" if any(_PHYSICAL.search(ln) and ":" not in ln and "=" not in ln
                                  for ln in section if not ln.strip().startswith("|")) else "native"
    table_cols: tuple[int, int] | None = None
    table_bad = False
    in_table = False
    for offset, raw in enumerate(section):
        lineno = start + offset + 1
        line = raw.strip()
        if not line or line.startswith("```"):
            in_table = False if not line else in_table
            continue
        if line.startswith("|") or (in_table and "|" in line):
            cells = [_clean(c) for c in line.strip("|").split("|")]
            if not in_table:
                in_table, table_bad = True, False
                lowered = [c.lower() for c in cells]
                a = next((lowered.index(c) for c in _ALIAS_COLS if c in lowered), None)
                p = next((lowered.index(c) for c in _PIN_COLS if c in lowered), None)
                if a is None or p is None or a == p:
                    table_cols, table_bad = None, True
                    problems.append(_problem(source, "alias", f"line {lineno}: pin-alias table header {cells} has no "
                                             "'alias' and 'pin' columns; table ignored (name them in the header row)"))
                else:
                    table_cols = (a, p)
                continue
            if table_bad or table_cols is None:
                continue
            if all(set(c) <= set("-: ") for c in cells):
                continue  # separator row
            a, p = table_cols
            if max(a, p) >= len(cells):
                problems.append(_problem(source, "alias", f"line {lineno}: table row has {len(cells)} cell(s), "
                                         "expected alias and pin cells; row skipped"))
                continue
            _add(cells[a], _strip_comment(cells[p]), source, tag, lineno, numbering, entries, problems,
                 heading)
            continue
        in_table = False
        body = _BULLET.sub("", line)
        body = _clean(body)
        sep = ":" if ":" in body else ("=" if "=" in body else None)
        if sep is None:
            continue  # prose
        key, _, value = body.partition(sep)
        key = _clean(key)
        if not _KEY_OK.match(key) or len(key.split()) > 4:
            continue  # a sentence with a colon, not an alias
        _add(key, _strip_comment(_clean(value)), source, tag, lineno, numbering, entries, problems, heading)


def _add(alias: str, value: str, source: str, tag: str | None, lineno: int, numbering: str,
         entries: list[AliasEntry], problems: list[Problem], heading: str = "") -> None:
    alias = alias.strip()
    if not alias or not value:
        problems.append(_problem(source, "alias", f"line {lineno}: alias {alias!r} has no pin value; skipped"))
        return
    if alias.lower() in _ALIAS_COLS or value.lower() in _PIN_COLS:
        return
    entries.append(AliasEntry(tag, alias, value, source, lineno, numbering, "alias", heading))


# --- pin tables ----------------------------------------------------------------------------------------

_PIN_TOKEN = re.compile(r"(?:P[A-L]\d{1,2}|P\d\.\d{1,2}|GPIO\d{1,2}|GP\d{1,2}|IO\d{1,2}|ADC\d{1,2})", re.IGNORECASE)
_PIN_HEADER = frozenset(["pin", "gpio", "bcm", "port", "stm32", "avr", "mcu", "io"])
_NAME_HEADER = frozenset({
    "alias", "label", "name", "signal", "arduino", "constant", "component", "relay", "input", "output", "led",
    "button", "channel", "node", "motor",
})
_NAME_EXACT = frozenset({"use", "function"})
_NOT_NAME = frozenset({
    "notes", "note", "direction", "active", "description", "physical", "phys", "index", "number", "no", "wiringpi",
    "address", "register", "functions", "timer", "alternate", "pins", "role", "value", "hardware", "part", "bus",
    "connection",
})
_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+\-#/ ]{0,31}$")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _header_words(cell: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", cell.lower()) if w}


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [_clean(c) for c in s.split("|")]


def _pin_value(cell: str, header_words: set[str]) -> str | None:
    value = re.sub(r"\s*\([^)]*\)\s*$", "", cell).strip()
    if _PIN_TOKEN.fullmatch(value):
        return value
    if value.isdigit() and header_words & {"bcm", "gpio"}:
        return f"GPIO{int(value)}"
    return None


def _names(cell: str) -> list[str]:
    out = []
    for part in cell.split(" / "):
        name = " ".join(re.sub(r"\([^)]*\)", " ", part).split())  # notes in brackets are not part of the name
        if not name or name.isdigit() or "," in name or len(name.split()) > 4 or not _NAME_OK.match(name):
            continue
        out.append(name)
    return out


def _pin_column(header: list[str], rows: list[list[str]]) -> int | None:
    for col, cell in enumerate(header):
        words = _header_words(cell)
        if not words & _PIN_HEADER or words & {"physical", "phys"}:
            continue
        cells = [r[col] for r in rows if col < len(r) and r[col] not in ("", "-")]
        if cells and sum(_pin_value(c, words) is not None for c in cells) >= 0.6 * len(cells):
            return col
    return None


def _name_columns(header: list[str], pin_col: int) -> list[int]:
    out = []
    for col, cell in enumerate(header):
        words = _header_words(cell)
        if col == pin_col or words & _NOT_NAME:
            continue
        if words & _NAME_HEADER or cell.strip().lower() in _NAME_EXACT:
            out.append(col)
    return out


def _tables(lines: list[str], skip: list[tuple[int, int]]) -> list[tuple[int, str, list[int]]]:
    """(header line index, heading path, row line indexes) of every Markdown table outside `skip` ranges."""
    out: list[tuple[int, str, list[int]]] = []
    path: list[tuple[int, str]] = []
    in_fence = False
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            i += 1
            continue
        m = _MD_HEADING.match(stripped) if not in_fence and stripped.startswith("#") else None
        if m:
            level = len(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, m.group(2).strip()))
        elif (not in_fence and "|" in stripped and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1].strip())
              and not any(a <= i < b for a, b in skip)):
            rows = []
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                rows.append(j)
                j += 1
            out.append((i, " > ".join(h for _, h in path), rows))
            i = j
            continue
        i += 1
    return out


def _period(header: list[str]) -> int:
    """Width of the smallest column group the header repeats (the whole width when it does not repeat)."""
    width = len(header)
    for k in range(2, width // 2 + 1):
        if width % k == 0 and all(header[i] == header[i % k] for i in range(width)):
            return k
    return width


def _parse_tables(lines: list[str], skip: list[tuple[int, int]], source: str, tag: str,
                  entries: list[AliasEntry], problems: list[Problem]) -> None:
    for head_at, heading, row_at in _tables(lines, skip):
        header = _split_row(lines[head_at])
        words = [_header_words(c) for c in header]
        if not any(w & _PIN_HEADER and not w & {"physical", "phys"} for w in words) or not any(
                (w & _NAME_HEADER or c.strip().lower() in _NAME_EXACT) and not w & _NOT_NAME
                for w, c in zip(words, header, strict=True)):
            continue  # no pin column or no name column in the header: not a pin table, rows never split
        rows = [_split_row(lines[j]) for j in row_at]
        width = len(header)
        # the same columns written two or more times side by side (| Arduino | AVR pin | Arduino | AVR pin |):
        # one table per repeat, so every (name, pin) pair of a row is read
        period = _period([c.lower() for c in header])
        groups = [(lo, lo + period) for lo in range(0, width, period)]
        for lo, hi in groups:
            sub_header = header[lo:hi]
            sub_rows = [r[lo:hi] for r in rows]
            pin_col = _pin_column(sub_header, sub_rows)
            if pin_col is None:
                continue
            name_cols = _name_columns(sub_header, pin_col)
            if not name_cols:
                continue
            pin_words = _header_words(sub_header[pin_col])
            for j, row, full in zip(row_at, sub_rows, rows, strict=True):
                if len(full) != width:
                    if lo == 0:
                        problems.append(_problem(source, "alias", f"line {j + 1}: pin-table row has {len(full)} "
                                                 f"cell(s) but its header has {width}; row skipped"))
                    continue
                value = _pin_value(row[pin_col], pin_words)
                if value is None:
                    continue
                for col in name_cols:
                    for name in _names(row[col]):
                        entries.append(AliasEntry(tag, name, value, source, j + 1, "native", "table", heading))
