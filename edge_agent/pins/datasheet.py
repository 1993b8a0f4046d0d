"""Pin names in datasheets: `## Pin Aliases` sections and pin tables, parsed into alias entries.

Pure text parsing (no files, no index): the datasheet index feeds it each file's text and keeps the
entries; the pin index (:mod:`edge_agent.pins.index`) turns them into names.

Alias sections (``## Pin Aliases``) are read by :mod:`edge_agent.pins.sections`.

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
``LED1 / Green`` gives two names) becomes an entry for the row's pin, cited with the table's heading;
an Arduino analog input written with its digital number (``A0 (54)`` on a Mega) gives the number too.
Physical-position columns, notes, directions and descriptions are not names. A table written twice
side by side (``| Arduino | AVR pin | Arduino | AVR pin |``) is read as two tables. A row with a
different number of cells from its header is reported and skipped. Columns headed notes, function(s),
alternate, timer or use add the function names their cells list (``AIN1``, ``OC1A`` in
``Timer1 A (OC1A)``).

Tables without a pin column: a define column whose number is a pin (``| PICO_DEFAULT_LED_PIN | 25 |``), an item
column beside what it connects to (``| B1 USER | PC13 |``) and a HAT's header positions with the pin in brackets
after its use (``| 3 | I2C1 SDA (GPIO2) |``). A name in brackets in a name cell (``SS (PIN_SPI_SS)``) is a name too.

Connector tables: under a heading naming a connector (``## Header J1``), a ``No.`` column and a pin column
give ``J1-<n>`` names. Bus tables (neither pin nor name column in the header): a column per signal
(``| UART | TX | RX |``), a row's signals and pins slash-separated (``| I2C1 SCL / SDA | PB8 / PB9 |``)
or listed in a cell (``| i2c0 | SDA P0.26, SCL P0.27 |``, ``CS = Arduino D10 (P1.12)``) give ``<bus>_<signal>``
names. A pin column beside a role or use column and no name column (``| J8-27 | GPIO0 | ID EEPROM SDA (I2C0) |``)
gives the functions the role cell lists; a device's bus signal written in capitals (``ID EEPROM SDA``) is one.
"""

from __future__ import annotations

import re
from collections.abc import Set
from functools import lru_cache

from edge_agent.pins import described
from edge_agent.pins.nodes import cell_label, node_links
from edge_agent.pins.prose_names import prose_names
from edge_agent.pins.ranges import pin_ranges, span
from edge_agent.pins.sections import AliasEntry as AliasEntry
from edge_agent.pins.sections import Problem as Problem
from edge_agent.pins.sections import alias_sections
from edge_agent.pins.sections import clean as _clean
from edge_agent.pins.sections import problem as _problem

#: Version of what the parser reads as pin names (part of the datasheet index's signature: the names are kept
#: with each indexed file, so a change re-reads persisted indexes).
PIN_RULES = 19

def board_tag(rel: str) -> str | None:
    """Board tag of a file: its lowercased stem; None for generic files (generic*, anything under _generic/)."""
    parts = rel.split("/")
    stem = parts[-1].rsplit(".", 1)[0].lower()
    if "_generic" in (p.lower() for p in parts[:-1]):
        return None
    if stem == "generic" or stem.startswith(("generic_", "generic-")):
        return None
    return stem


def parse_aliases(text: str, source: str, tag: str | None) -> tuple[list[AliasEntry], list[Problem]]:
    """Parse every pin-alias section and (in a board's or part's file) every pin table of a document into entries
    plus problems for malformed lines."""
    entries: list[AliasEntry] = []
    problems: list[Problem] = []
    lines = text.split("\n")
    sections = alias_sections(lines, source, tag, entries, problems)  # their tables are alias tables
    if tag is not None:
        _parse_tables(lines, sections, source, tag, entries, problems)
        entries.extend(AliasEntry(tag, name, value, source, line, "native", kind)
                       for line, name, value, kind in pin_ranges(text))
        entries.extend(AliasEntry(tag, name, value, source, line, "native", "equal")
                       for line, name, value in node_links(text))
        entries.extend(AliasEntry(tag, name, value, source, line, "native", kind)
                       for line, name, value, kind in prose_names(text))
        entries.extend(AliasEntry(tag, what, value, source, line, "native", "description")
                       for line, what, value in described.in_prose(text))
    return entries, problems


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


_NOT_WORD = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1024)
def _header_words(cell: str) -> frozenset[str]:
    """The words of a header cell (kept for the next table: a library's tables repeat their headers)."""
    return frozenset(w for w in _NOT_WORD.split(cell.lower()) if w)


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    if "`" not in s and "**" not in s and "__" not in s:  # no markup anywhere in the row: _clean only strips
        return [c.strip() for c in s.split("|")]
    return [_clean(c) for c in s.split("|")]


_TRAILING_NOTE = re.compile(r"\s*\([^)]*\)\s*$")


def _pin_value(cell: str, header_words: Set[str]) -> str | None:
    value = _TRAILING_NOTE.sub("", cell).strip() if ")" in cell else cell.strip()
    if _PIN_TOKEN.fullmatch(value):
        return value
    if value.isdigit() and header_words & {"bcm", "gpio"}:
        return f"GPIO{int(value)}"
    return None


#: "pin 18", "pin number 20" in a note: the Arduino pin number of the row's pin.
_PIN_NUMBER = re.compile(r"\bpin(?: number)? (\d{1,2})\b")
#: An Arduino analog input with its digital number in brackets (the Mega's ``A0 (54)``): the number names it too.
_ANALOG_NUMBER = re.compile(r"A\d{1,2} \((\d{1,3})\)")


#: A name written in brackets after a description or another name: one to three words, each starting with a capital
#: or a digit (``Atmel chip select (SPI0 CE0)``, ``SS (PIN_SPI_SS)``, ``APA102 data (DAT)``), not a note in words.
_BRACKETED_NAME = re.compile(r"[A-Z0-9][A-Za-z0-9_/]*(?: [A-Z0-9][A-Za-z0-9_/]*){0,2}")


def _names(cell: str) -> list[str]:
    out = []
    for part in cell.split(" / "):
        name = " ".join(_PAREN.sub(" ", part).split())  # notes in brackets are not part of the name
        if not name or name.isdigit() or "," in name or len(name.split()) > 4 or not _NAME_OK.match(name):
            continue
        out.append(name)
        if "(" in part:
            if (number := _ANALOG_NUMBER.fullmatch(part.strip())) is not None:
                out += [number.group(1), f"D{number.group(1)}"]  # digital pin 62: "62" in a sketch, D62
            # ... but a name in them is the pin's name too: the Arduino core's constant, the Pi's bus signal
            out += [n for n in (" ".join(x.split()) for x in _PAREN_TEXT.findall(part))
                    if _BRACKETED_NAME.fullmatch(n) and not n.isdigit() and any(c.isalpha() for c in n)]
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
    n = len(lines)
    after = 0  # the first line past the last table read
    # only a line holding a pipe, a hash or a backtick can open a table, a section or a code fence: the others
    # (most of a datasheet's prose) are not looked at one by one
    for i in [k for k, line in enumerate(lines) if "|" in line or "#" in line or "`" in line]:
        if i < after:
            continue
        stripped = lines[i].strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            continue
        m = _MD_HEADING.match(stripped) if not in_fence and stripped.startswith("#") else None
        if m:
            level = len(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, m.group(2).strip()))
        elif (not in_fence and "|" in stripped and i + 1 < n and _TABLE_SEP.match(lines[i + 1].strip())
              and not any(a <= i < b for a, b in skip)):
            rows = []
            j = i + 2
            while j < n and "|" in lines[j] and lines[j].strip():
                rows.append(j)
                j += 1
            out.append((i, " > ".join(h for _, h in path), rows))
            after = j
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
    """The names of every pin, connector, function and bus table outside alias sections."""
    for head_at, heading, row_at in _tables(lines, skip):
        if _plain_header(lines[head_at]):  # most tables of a datasheet: register maps and specifications
            block = "\n".join([lines[j] for j in row_at])
            if "/" not in block and ", " not in block:
                continue  # no row lists signals over pins or "SDA P0.26, SCL P0.27": the table names nothing
        _parse_table(lines, head_at, heading, row_at, source, tag, entries, problems)


@lru_cache(maxsize=1024)
def _plain_header(line: str) -> bool:
    """Whether a table under this header row can only name pins as a bus table read row by row (its rows listing
    signals over pins or ``SDA P0.26, SCL P0.27``): it has no pin column beside a name column, no position column
    (a connector's), no alternate-function column, no role column beside a pin column, no define, item, position
    or devicetree-alias first column and fewer than two signal columns. Decided once for each header a library
    writes (its register maps repeat a few), where :func:`_parse_table` would try each kind of table in turn."""
    header = _split_row(line)
    words = [_header_words(c) for c in header]
    pin = any(w & _PIN_HEADER and not w & {"physical", "phys"} for w in words)
    if pin and any((w & _NAME_HEADER or c.strip().lower() in _NAME_EXACT) and not w & _NOT_NAME
                   for w, c in zip(words, header, strict=True)):
        return False  # a (name, pin) table
    if any(c.strip().lower() in _POSITION_HEADER for c in header):
        return False  # maybe a connector's positions
    if any(_ALT_COLUMN.match(" ".join(c.lower().split())) for c in header):
        return False  # an alternate-function table
    if pin and any(w & _ROLE_HEADER for w in words):
        return False  # pins and their roles
    first = words[0] if len(header) >= 2 else frozenset()
    if (first & {"define", "constant", "physical", "phys"}
            or (first & {"item"} and words[1] & {"connection", "connected"})
            or (first & {"alias"} and any(w & {"hardware"} for w in words))):
        return False  # constants, items, header positions or devicetree aliases (_parse_item_table)
    roles = [col for col, cell in enumerate(header)
             if " ".join(w for w in cell.lower().split() if w not in ("pin", "pins")) in _ROLES]
    return not (len(roles) >= 2 and 0 not in roles)  # a column per signal: read whatever the rows hold


def _parse_table(lines: list[str], head_at: int, heading: str, row_at: list[int], source: str, tag: str,
                 entries: list[AliasEntry], problems: list[Problem]) -> None:
    """The names one table gives (its header at `head_at`, its rows at `row_at`)."""
    header = _split_row(lines[head_at])
    words = [_header_words(c) for c in header]
    if not any(w & _PIN_HEADER and not w & {"physical", "phys"} for w in words) or not any(
            (w & _NAME_HEADER or c.strip().lower() in _NAME_EXACT) and not w & _NOT_NAME
            for w, c in zip(words, header, strict=True)):
        # not a (name, pin) table: maybe a connector's positions, or one naming a bus's signals (a role per
        # column, or roles and pins listed in a row's cells)
        if not (_parse_connector_table(lines, header, row_at, source, tag, heading, entries)
                or _parse_function_table(lines, header, words, row_at, source, tag, heading, entries)
                or _parse_role_table(lines, header, words, row_at, source, tag, heading, entries)
                or _parse_item_table(lines, header, words, row_at, source, tag, heading, entries)):
            _parse_bus_table(lines, header, row_at, source, tag, heading, entries)
        return
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
        function_cols = _function_columns(sub_header, pin_col, name_cols)
        description_cols = [col for col, cell in enumerate(sub_header)
                            if col != pin_col and _header_words(cell) & _DESCRIPTION_HEADER]
        # a 'Physical pin' column beside the pin column (a HAT's table of the 40-pin header it sits on): the
        # number is the header position, so the row's pin also answers to 'pin N'
        phys_col = next((c for c, cell in enumerate(sub_header)
                         if c != pin_col and _header_words(cell) & {"physical", "phys"}), None)
        # a WiringPi column (the wiringPi library's legacy numbers of the 40-pin header): 8 in it is WPI8
        wpi_col = next((c for c, cell in enumerate(sub_header)
                        if c != pin_col and _header_words(cell) & {"wiringpi", "wpi"}), None)
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
                if (label := cell_label(row[col])) is not None:  # | led0 (label "Green LED 0") |
                    entries.append(AliasEntry(tag, label, value, source, j + 1, "native", "table", heading))
            if wpi_col is not None and row[wpi_col].strip().isdigit():
                entries.append(AliasEntry(tag, f"WPI{int(row[wpi_col])}", value, source, j + 1, "native", "table",
                                          heading))
            if phys_col is not None and row[phys_col].strip().isdigit():
                entries.append(AliasEntry(tag, f"pin {int(row[phys_col])}", value, source, j + 1, "native",
                                          "table", heading))
            for col in description_cols:  # what the pin does, read when no name answers (pins.described)
                entries.extend(AliasEntry(tag, what, value, source, j + 1, "native", "description", heading)
                               for what in described.clauses(row[col]))
            for col in function_cols:
                for name in _function_names(row[col]):
                    entries.append(AliasEntry(tag, name, value, source, j + 1, "native", "function", heading))
                # a note giving the Arduino pin number of a header row ("A4 | PC4 | I2C SDA (pin 18)"): 18 names it
                if (number := _PIN_NUMBER.search(row[col])) is not None and any(
                        _ARDUINO_PIN.fullmatch(row[c]) for c in name_cols):
                    entries.append(AliasEntry(tag, number.group(1), value, source, j + 1, "native", "table", heading))


def _parse_role_table(lines: list[str], header: list[str], words: list[frozenset[str]], row_at: list[int], source: str,
                      tag: str, heading: str, entries: list[AliasEntry]) -> bool:
    """A pin column beside a column of what each pin does and no name column (``| J8-27 | GPIO0 | ID EEPROM SDA
    (I2C0), leave free |`` under ``| Position | BCM | Default role |``): the functions each row's cell lists."""
    cols = [c for c, w in enumerate(words) if w & _ROLE_HEADER]
    if not cols or not any(w & _PIN_HEADER and not w & {"physical", "phys"} for w in words):
        return False  # most tables: a look at the header, not a split of every row
    rows = [_split_row(lines[j]) for j in row_at]
    pin_col = _pin_column(header, rows)
    if pin_col is None or pin_col in cols:
        return False
    for j, row in zip(row_at, rows, strict=True):
        value = _pin_value(row[pin_col], words[pin_col]) if len(row) == len(header) else None
        if value is not None:
            entries.extend(AliasEntry(tag, name, value, source, j + 1, "native", "function", heading)
                           for name in _function_names(row[cols[0]]))
            entries.extend(AliasEntry(tag, what, value, source, j + 1, "native", "description", heading)
                           for what in described.clauses(row[cols[0]]))
    return True


# --- tables of items, constants and header positions ------------------------------------------------------

#: A define or constant naming a pin by its number (the pico-sdk's ``PICO_DEFAULT_LED_PIN``, the Arduino core's
#: ``PIN_A0``): the number is the board's own numbering, as in the code that uses it.
_PIN_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*_PIN|PIN_[A-Z0-9_]+")
#: A reference designator and its label (``B1 USER``, ``LD2``, ``SW3 RESET``): the designator alone names it too.
_DESIGNATOR = re.compile(r"([A-Z]{1,3}\d{1,2}) [A-Z][A-Za-z]*")
#: The pin a devicetree alias's hardware is wired to, written last ("LD2 on PA5", "TIM2 CH1 on PA5").
_WIRED_TO = re.compile(r"\bon (\S+)$")
#: A pin written in brackets after what it does (``I2C1 SDA (GPIO2)`` in a HAT's table of header positions).
_NAME_THEN_PIN = re.compile(r"(.+?)\s*\(([^()]+)\)\s*")


def _parse_item_table(lines: list[str], header: list[str], words: list[frozenset[str]], row_at: list[int], source: str,
                      tag: str, heading: str, entries: list[AliasEntry]) -> bool:
    """Tables naming pins without a pin column: a devicetree alias table whose hardware column says where each goes
    (``| pwm-led0 | green_pwm_led | TIM2 CH1 on PA5 |``); a define or constant column with its value
    (``| PICO_DEFAULT_LED_PIN | 25 |``); an item column with what it connects to (``| B1 USER | PC13 | ... |``:
    the rows whose connection is a pin; LD1 on the ST-LINK is none); a HAT's header positions with the pin in
    brackets after its use (``| 3 | I2C1 SDA (GPIO2) |``: position 3 is ``pin 3``)."""
    first = words[0] if len(header) >= 2 else set()
    constants = bool(first & {"define", "constant"})
    items = bool(first & {"item"}) and bool(words[1] & {"connection", "connected"})
    positions = bool(first & {"physical", "phys"}) and len(header) == 2
    wired = next((c for c, w in enumerate(words) if w & {"hardware"}), None) if first & {"alias"} else None
    if not (constants or items or positions or wired is not None):
        return False  # most tables: register maps and specifications, passed over at the cost of a look at the header
    kept = [(j, r) for j in row_at if len(r := _split_row(lines[j])) == len(header)]
    rows = [r for _, r in kept]
    found: list[tuple[str, str, int]] = []  # (name, pin as written, row index)
    if wired is not None:  # | led0 | green_led_2 | LD2 on PA5 |: a devicetree alias, its node, and where it goes
        for i, r in enumerate(rows):
            m = _WIRED_TO.search(r[wired])
            if m is not None and (pin := _pin_value(m.group(1), set())) is not None:
                found += [(n, pin, i) for c, cell in enumerate(r) if c != wired for n in _names(cell)]
    elif constants:
        found = [(r[0], r[1], i) for i, r in enumerate(rows) if _PIN_CONSTANT.fullmatch(r[0]) and r[1].isdigit()]
    elif items:
        for i, r in enumerate(rows):
            if (pin := _pin_value(r[1], set())) is not None:
                found += [(n, pin, i) for n in _names(r[0])]
                found += [(m.group(1), pin, i) for m in [_DESIGNATOR.fullmatch(r[0])] if m is not None]
    else:
        for i, r in enumerate(rows):
            m = _NAME_THEN_PIN.fullmatch(r[1])
            if m is not None and r[0].isdigit() and (pin := _pin_value(m.group(2), set())) is not None:
                found += [(n, pin, i) for n in _names(m.group(1))] + [(f"pin {int(r[0])}", pin, i)]
    entries.extend(AliasEntry(tag, name, pin, source, kept[i][0] + 1, "native", "table", heading)
                   for name, pin, i in found)
    return bool(found)


# --- functions and bus signals in tables -------------------------------------------------------------------

#: Headers of columns that list what else a row's pin does (``ADC1_IN11``, ``Timer1 A (OC1A)``, ``AIN1``).
_FUNCTION_HEADER = frozenset({"notes", "note", "functions", "function", "alternate", "timer", "useful", "use"})
#: Headers of a column saying what each pin does in a table with no name column (``| Position | BCM | Default role |``).
_ROLE_HEADER = _FUNCTION_HEADER | {"role"}
#: Headers of a column saying in words what a pin does or is wired to (``| Default role |``, ``| Description |``).
_DESCRIPTION_HEADER = _ROLE_HEADER | {"description", "purpose", "usage", "connection", "connected"}
#: A function name: a word of letters and a number (``AIN1``, ``USART2``, ``OC1A``, ``ADC1_IN11``, ``LD4``),
#: optionally followed by one or two short words (``UART1 RX``, ``TIM3 CH1 PWM``).
_FUNCTION = re.compile(r"^[A-Za-z][A-Za-z_]*\d[A-Za-z0-9_]*(?: [A-Za-z][A-Za-z0-9_]{0,5}){0,2}$")


#: Words that name a kind of bus or a position, not one function: ``I2C SDA`` is the SDA of whichever I2C bus.
_FAMILIES = frozenset({"i2c", "i2s", "pin", "pins"})
#: A bus signal of one device, named by the device in capitals (``ID EEPROM SDA``, ``EEPROM SCL``): one pin, like
#: ``I2C0 SDA``. The device may not be a kind of bus (``SPI CS`` is the CS of whichever SPI bus).
_DEVICE_SIGNAL = re.compile(r"^(?!(?:SPI|I2C|UART|USART|SERIAL|WIRE|TWI|I2S) )(?:[A-Z][A-Z0-9]{1,7} ){1,2}"
                            r"(?:SDA|SCL|TXD?|RXD?|MOSI|MISO|SCLK|SCK|CE[01]|CTS|RTS)$")


def _function_columns(header: list[str], pin_col: int, name_cols: list[int]) -> list[int]:
    return [col for col, cell in enumerate(header)
            if col != pin_col and col not in name_cols and _header_words(cell) & _FUNCTION_HEADER]


def _function_names(cell: str, pattern: re.Pattern[str] | None = None) -> list[str]:
    """Function names a notes cell lists: comma-separated parts and what brackets hold (``Timer1 A (OC1A)``
    gives ``Timer1 A`` and ``OC1A``); a part that is a sentence, a pin position or a bare word is not one.
    `pattern` replaces the test of a name (a cell of an alternate-function column is one even without a
    number: ``PCM DIN``)."""
    out = []
    for part in cell.split(","):
        if " / " in part:  # one peripheral, two signals: "I2CSL SCL / SCLK" is I2CSL SCL and I2CSL SCLK
            head, *rest = [p.strip() for p in part.split(" / ")]
            prefix = head.rsplit(" ", 1)[0] if " " in head else ""
            part = ",".join([head, *(f"{prefix} {r}" for r in rest if prefix and " " not in r)])
            out += _function_names(part, pattern)
            continue
        for name in [_PAREN.sub(" ", part), *_PAREN_TEXT.findall(part)] if "(" in part else [part]:
            name = " ".join(name.split())
            if ((pattern or _FUNCTION).match(name) or _DEVICE_SIGNAL.match(name)) and \
                    name.split()[0].lower() not in _FAMILIES:
                out.append(name)
                if name.count(" ") == 2 and name.rsplit(" ", 1)[1].isupper():  # TIM3 CH1 PWM is TIM3 CH1 too
                    out.append(name.rsplit(" ", 1)[0])
    return out


#: Signal names a bus table's columns or cells use for one line of the bus.
_ROLES = frozenset({
    "tx", "rx", "txd", "rxd", "rts", "cts", "sda", "scl", "sck", "sclk", "mosi", "miso", "cs", "csn", "nss", "ce0",
    "ce1", "ws", "bck", "din", "dout",
})
_ROLE_THEN_PIN = re.compile(r"\b(?:" + "|".join(sorted(_ROLES)) + r"|data\s+(?:in|out))"
                            r"\s+(?:P[A-L]\d|P\d\.|GPIO\d|GP\d|IO\d)",
                            re.IGNORECASE)
_ROLE_PIN = re.compile(r"^([A-Za-z][A-Za-z0-9]{0,5})\s+(\S+)(?:\s*\([^)]*\))?$")
#: A signal written in words in a bus cell ("BCK GPIO32, WS GPIO33, data out GPIO25"), and its short name.
_WORD_ROLE_PIN = re.compile(r"^(data\s+(?:out|in))\s+(\S+)$", re.IGNORECASE)
_WORD_ROLES = {"data out": "DOUT", "data in": "DIN"}
#: Numbered lines of a bus over a span of pins in a bus cell: "IO0-IO3 P0.20-P0.23" (a QSPI's data lines).
_ROLE_SPAN = re.compile(r"^([A-Za-z]{1,4})(\d{1,2})-\1?(\d{1,2})\s+(P\d\.|P[A-L]|GPIO|GP)(\d{1,2})-\4?(\d{1,2})$")
_ROLE_IS_PIN = re.compile(r"^([A-Za-z][A-Za-z0-9]{0,5})\s*=\s*[^()=]*\(([^()]+)\)$")
_TOP_COMMA = re.compile(r",(?![^()]*\))")


_PAREN = re.compile(r"\([^)]*\)")
_PAREN_TEXT = re.compile(r"\(([^)]*)\)")
_BUS_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,23}")
#: A first cell that names a bus: a name, maybe another after a slash, maybe a note in brackets.
_BUS_CELL = re.compile(r"\s*[A-Za-z][A-Za-z0-9_]{1,23}(?:\s*/\s*[A-Za-z][A-Za-z0-9_]{1,23})?(?:\s*\([^)]*\))?\s*$")


def _bus_names(cell: str) -> list[str]:
    """The names a bus cell gives its bus: ``uart1 (arduino_serial)`` is uart1 and arduino_serial,
    ``Serial1 (USART1)`` Serial1 and USART1; of a list in brackets, the numbered peripheral (``Serial (USART0,
    USB)`` is Serial and USART0: the USB bridge the port is wired to names no signal of it)."""
    out = []
    parts = _PAREN.sub(" ", cell).split(" / ")
    for held in _PAREN_TEXT.findall(cell) if "(" in cell else ():
        items = held.split(",")
        parts += items if len(items) == 1 else [i for i in items if any(ch.isdigit() for ch in i)]
    for name in parts:
        name = " ".join(name.split())
        if _BUS_NAME.fullmatch(name):
            out.append(name)
    return out


def _parse_bus_table(lines: list[str], header: list[str], row_at: list[int], source: str, tag: str,
                     heading: str, entries: list[AliasEntry]) -> None:
    """Bus tables: a column per signal (``| UART | TX | RX | RTS | CTS |`` rows ``| uart0 | P0.06 | ... |``,
    including Arduino pins whose port pins a later cell lists in the same order, ``| D18 | D19 | PD3 / PD2 |``),
    a row per bus with its signals and pins slash-separated (``| I2C1 SCL / SDA | PB8 / PB9 |``) or listed as
    ``SDA P0.26, SCL P0.27`` (a signal may be written in words: ``data out GPIO25`` is DATA_OUT and DOUT; numbered
    lines over a span of pins pair up in order: ``IO0-IO3 P0.20-P0.23``). Each signal becomes ``<bus>_<signal>`` for
    its pin."""
    roles = {col: role for col, cell in enumerate(header)
             if (role := " ".join(w for w in cell.lower().split() if w not in ("pin", "pins"))) in _ROLES}

    def add(name: str, value: str, j: int) -> None:
        if _NAME_OK.match(name):
            entries.append(AliasEntry(tag, name, value, source, j + 1, "native", "table", heading))

    by_column = len(roles) >= 2 and 0 not in roles
    if not by_column:
        block = "\n".join(lines[j] for j in row_at)
        if "/" not in block and ", " not in block:
            return  # one test for the whole table first: most tables of a datasheet are register maps and specs
    for j in row_at:
        line = lines[j].strip()
        first = line[1:] if line.startswith("|") else line
        first = first[:first.find("|")]
        if (not by_column and "/" not in first and " " in first.strip() and _PIN_TOKEN.search(line)
                and _FUNCTION.match(_clean(first))):  # | ADC1 IN1 | PC0 |: a signal on one pin
            row = _split_row(lines[j])
            if len(row) >= 2 and (value := _pin_value(row[1], set())) is not None:
                entries.extend(AliasEntry(tag, name, value, source, j + 1, "native", "function", heading)
                               for name in _function_names(row[0]))
                continue
        if not by_column and ("/" not in first or not _PIN_TOKEN.search(line)) and (
                ", " not in line or not _BUS_CELL.match(first) or not _ROLE_THEN_PIN.search(line)):
            continue  # neither signals over pins nor "SDA P0.26, SCL P0.27" in this row (plain substring tests
            # first: most tables of a datasheet are register maps and specifications)
        row = _split_row(lines[j])
        if len(row) != len(header) or not row:
            continue
        buses = _bus_names(row[0])
        if by_column:
            pins = {col: _pin_value(row[col], set()) for col in roles if col < len(row)}
            later = [_pin_list(c) for c in row[max(roles) + 1:]]
            listed = next((p for p in later if p is not None and len(p) == len(roles)), None)
            for k, col in enumerate(sorted(roles)):
                value = pins.get(col) or (listed[k] if listed else None)
                if value is None:
                    continue
                for bus in buses:
                    add(f"{bus}_{roles[col].upper()}", value, j)
                if listed and pins.get(col) is None and _ARDUINO_PIN.fullmatch(row[col]):
                    add(row[col], value, j)
            continue
        words = row[0].split()
        if len(words) >= 2 and "/" in row[0] and not words[0].endswith("/") and words[1] != "/":
            signals = [" ".join(p.split()) for p in " ".join(words[1:]).split("/")]  # | I2C1 SCL / SDA | PB8 / PB9 |
            listed = next((p for c in row[1:] if (p := _pin_list(c)) is not None and len(p) == len(signals)), None)
            if listed is not None:
                for sig, value in zip(signals, listed, strict=True):
                    add(f"{words[0]}_{sig.replace(' ', '_')}", value, j)
                continue
        for cell in row[1:]:  # | i2c0 (arduino_i2c) | SDA P0.26, SCL P0.27 | (a note in brackets may hold commas)
            for part in _PAREN.sub(" ", cell).split(","):
                m = _ROLE_PIN.match(part.strip())
                if m and m.group(1).lower() in _ROLES and (value := _pin_value(m.group(2), set())) is not None:
                    for bus in buses:
                        add(f"{bus}_{m.group(1).upper()}", value, j)
                elif (m := _ROLE_SPAN.match(part.strip())) is not None:  # IO0-IO3 P0.20-P0.23: IO1 is P0.21
                    wires, spots = span(m.group(1), m.group(2), m.group(3)), span(*m.group(4, 5, 6))
                    if wires is not None and spots is not None and len(wires) == len(spots):
                        for bus in buses:
                            for wire, spot in zip(wires, spots, strict=True):
                                add(f"{bus}_{wire.upper()}", spot, j)
                elif (m := _WORD_ROLE_PIN.match(part.strip())) and (value := _pin_value(m.group(2), set())):
                    said = " ".join(m.group(1).lower().split())  # "data out": I2S0_DATA_OUT and I2S0_DOUT
                    for bus in buses:
                        add(f"{bus}_{said.upper().replace(' ', '_')}", value, j)
                        add(f"{bus}_{_WORD_ROLES[said]}", value, j)
            # a signal set equal to a header pin with the chip's pin in brackets: "CS = Arduino D10 (P1.12)"
            for part in _TOP_COMMA.split(cell):
                m = _ROLE_IS_PIN.match(part.strip())
                if m and m.group(1).lower() in _ROLES and (value := _pin_value(m.group(2), set())) is not None:
                    for bus in buses:
                        add(f"{bus}_{m.group(1).upper()}", value, j)


_ARDUINO_PIN = re.compile(r"[DA]\d{1,2}")


def _pin_list(cell: str) -> list[str] | None:
    """``PB8 / PB9`` as its pins, or None when any part is not a pin."""
    parts = [p.strip() for p in cell.split("/")]
    if len(parts) < 2:
        return None
    pins = [_pin_value(p, set()) for p in parts]
    return None if any(p is None for p in pins) else [p for p in pins if p is not None]


#: A connector a section is about ("Header J1", "CN7"): its table's numbered rows are positions on it.
_CONNECTOR = re.compile(r"\b(J\d{1,2}|CN\d{1,2})\s*$")
_POSITION_HEADER = frozenset({"no", "no.", "#", "pos", "position"})


def _parse_connector_table(lines: list[str], header: list[str], row_at: list[int], source: str, tag: str,
                           heading: str, entries: list[AliasEntry]) -> bool:
    """A table under a heading naming a connector (``## Header J1``) with a position column (``No.``) and a
    column of pins (``IO36``): position n is ``J1-n``, as a vendor's header drawing numbers it."""
    m = _CONNECTOR.search(heading.split(" > ")[-1])
    if m is None:
        return False
    pos_col = next((c for c, cell in enumerate(header) if cell.strip().lower() in _POSITION_HEADER), None)
    if pos_col is None:
        return False
    rows = [_split_row(lines[j]) for j in row_at]
    pin_col = next((c for c in range(len(header)) if c != pos_col and sum(
        1 for r in rows if c < len(r) and _pin_value(r[c], set()) is not None) >= 0.5 * len(rows)), None)
    if pin_col is None:
        return False
    for j, row in zip(row_at, rows, strict=True):
        if len(row) != len(header) or not row[pos_col].isdigit():
            continue
        value = _pin_value(row[pin_col], set())
        if value is not None:
            entries.append(AliasEntry(tag, f"{m.group(1)}-{int(row[pos_col])}", value, source, j + 1, "native",
                                      "table", heading))
    return True


#: Columns of an alternate-function table: ``ALT0``-``ALT5`` (Broadcom), ``F0``-``F8`` (RP1), or one per peripheral
#: kind (``| GPIO | SPI | I2C | UART | PWM slice |`` on the RP2040).
_ALT_COLUMN = re.compile(r"^(?:alt\d|f\d|spi|i2c|i2s|uart|pwm|pwm slice|adc)$")


_ALT_FUNCTION = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_]{1,6}){0,2}$")


def _parse_function_table(lines: list[str], header: list[str], words: list[frozenset[str]], row_at: list[int],
                          source: str, tag: str, heading: str, entries: list[AliasEntry]) -> bool:
    """An alternate-function table: a pin column and a column per function (``| 4 | GPCLK0 | SPI4 CE0 |``); every
    function a cell names (``SPI4 CE0``, ``I2C6 SDA``) becomes a name of the row's pin. A function on several pins
    (I2C6 SDA on GPIO0 and GPIO22) is then ambiguous, listing both."""
    cols = [c for c, cell in enumerate(header) if _ALT_COLUMN.match(" ".join(cell.lower().split()))]
    if not cols:
        return False
    rows = [_split_row(lines[j]) for j in row_at]
    pin_col = _pin_column(header, rows)
    if pin_col is None or pin_col in cols:
        return False
    pin_words = words[pin_col]
    for j, row in zip(row_at, rows, strict=True):
        if len(row) != len(header):
            continue
        value = _pin_value(row[pin_col], pin_words)
        if value is None:
            continue
        for col in cols:
            for name in _function_names(row[col], _ALT_FUNCTION):
                entries.append(AliasEntry(tag, name, value, source, j + 1, "native", "function", heading))
    return True
