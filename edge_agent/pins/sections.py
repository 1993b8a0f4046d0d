"""Pin-alias sections of a datasheet: `## Pin Aliases` lines and tables, parsed into alias entries.

Accepted forms inside a section headed `Pin Aliases`, `Pin Alias` or `Pins` (any heading level; the
section ends at the next heading of the same or a higher level):

* ``name: value`` or ``name = value`` lines, with list bullets, backticks and bold markup stripped;
* Markdown (or plain ``|``) tables whose header row names an alias column (``alias``, ``name``,
  ``label``, ``signal``) and a pin column (``pin``, ``gpio``, ``value``, ``target``), in any order.

A prose line in the section that says the values are physical header pin numbers switches bare
integers in that section from the board's native numbering to physical header positions.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

log = logging.getLogger("edge_agent.pins.datasheet")

__all__ = ["AliasEntry", "Problem", "alias_sections", "clean", "problem"]

_SECTION = re.compile(r"^(#{1,6})\s+pins?(?:\s+alias(?:es)?)?\s*#*\s*$", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})\s+\S")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_KEY_OK = re.compile(r"^[A-Za-z0-9_.+/\- ]{1,48}$")
_PHYSICAL = re.compile(r"\bphysical\b|\bheader pin (?:number|position)s?\b|\bboard numbering\b", re.IGNORECASE)
_ALIAS_COLS = ("alias", "name", "label", "signal")
_PIN_COLS = ("pin", "gpio", "value", "target", "pin name")


@dataclass(frozen=True, init=False)
class AliasEntry:
    """One alias line: `alias` names `value` on boards answering to `tag` (None = every board)."""

    tag: str | None
    alias: str
    value: str
    source: str
    line: int
    numbering: str = "native"  # "native" (the board's integer convention) or "physical" (header positions)
    kind: str = "alias"  # "alias" (a pin-alias section), "table" (a pin table), "prose" (a range set equal to
    # another in prose, D2-D7 = PD2-PD7), "function" (a function a pin can take, from a notes or
    # alternate-function column) or "range" (a pin a range in prose names, A0-A15: the weakest, see PinIndex)
    heading: str = ""  # heading of the section or table it comes from

    def __init__(self, tag: str | None, alias: str, value: str, source: str, line: int, numbering: str = "native",
                 kind: str = "alias", heading: str = "") -> None:
        # the fields go straight into the instance's dict: the frozen class's own __init__ sets each through
        # object.__setattr__, three times the cost, and a library's pin tables give tens of entries a file
        fields = self.__dict__
        fields["tag"] = tag
        fields["alias"] = alias
        fields["value"] = value
        fields["source"] = source
        fields["line"] = line
        fields["numbering"] = numbering
        fields["kind"] = kind
        fields["heading"] = heading


@dataclass(frozen=True)
class Problem:
    """A warning about one datasheet (kind "alias" for a malformed alias line or pin-table row)."""

    source: str
    kind: str
    message: str


def problem(source: str, kind: str, message: str) -> Problem:
    """A problem with a datasheet, logged as a warning."""
    log.warning("datasheet %s: %s", source, message)
    return Problem(source, kind, message)


def clean(cell: str) -> str:
    """A cell or line without Markdown code and bold marks."""
    cell = cell.strip()
    cell = cell.replace("`", "").replace("**", "").replace("__", "")
    return cell.strip()


_COMMENT = re.compile(r"\s+#.*$")
_NOTE = re.compile(r"\s*\([^)]*\)\s*$")


def _strip_comment(value: str) -> str:
    value = _COMMENT.sub("", value)  # trailing "# comment"
    value = _NOTE.sub("", value)  # trailing "(note)"
    return value.strip()


def alias_sections(lines: list[str], source: str, tag: str | None, entries: list[AliasEntry],
                   problems: list[Problem]) -> list[tuple[int, int]]:
    """Read every pin-alias section of a document's `lines` into `entries` (and `problems`); the sections' (heading
    line, end) ranges."""
    sections: list[tuple[int, int]] = []
    after = 0  # the first line past the last section read
    for i in [k for k, line in enumerate(lines) if "#" in line]:  # only a line with a hash can be a heading
        if i < after:
            continue
        m = _SECTION.match(lines[i].strip())
        if not m:
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
        after = end
    return sections


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
            cells = [clean(c) for c in line.strip("|").split("|")]
            if not in_table:
                in_table, table_bad = True, False
                lowered = [c.lower() for c in cells]
                a = next((lowered.index(c) for c in _ALIAS_COLS if c in lowered), None)
                p = next((lowered.index(c) for c in _PIN_COLS if c in lowered), None)
                if a is None or p is None or a == p:
                    table_cols, table_bad = None, True
                    problems.append(problem(source, "alias", f"line {lineno}: pin-alias table header {cells} has no "
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
                problems.append(problem(source, "alias", f"line {lineno}: table row has {len(cells)} cell(s), "
                                         "expected alias and pin cells; row skipped"))
                continue
            _add(cells[a], _strip_comment(cells[p]), source, tag, lineno, numbering, entries, problems,
                 heading)
            continue
        in_table = False
        body = _BULLET.sub("", line)
        body = clean(body)
        sep = ":" if ":" in body else ("=" if "=" in body else None)
        if sep is None:
            continue  # prose
        key, _, value = body.partition(sep)
        key = clean(key)
        if not _KEY_OK.match(key) or len(key.split()) > 4:
            continue  # a sentence with a colon, not an alias
        _add(key, _strip_comment(clean(value)), source, tag, lineno, numbering, entries, problems, heading)


def _add(alias: str, value: str, source: str, tag: str | None, lineno: int, numbering: str,
         entries: list[AliasEntry], problems: list[Problem], heading: str = "") -> None:
    alias = alias.strip()
    if not alias or not value:
        problems.append(problem(source, "alias", f"line {lineno}: alias {alias!r} has no pin value; skipped"))
        return
    if alias.lower() in _ALIAS_COLS or value.lower() in _PIN_COLS:
        return
    entries.append(AliasEntry(tag, alias, value, source, lineno, numbering, "alias", heading))
