"""A datasheet's pin-alias entries as the index stores them: one compact JSON text per file.

A board's pin table yields thousands of entries, each with the same file, the same few headings and the same
handful of field names. Written as a list of objects, those repeats were three quarters of the stored text (about
12.7 KB a file on a large library, nearly as much as its chunks); here each entry is a row of values, its heading
an index into the file's list of headings, and its source left out when it is the file itself:

    [["Pin Aliases", "Pin mapping"], [["nucleo-f401re", "red_led", "PA5", 41, "native", "alias", 0], ...]]

Entries come back in the order they were stored, equal to those written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from edge_agent.pins.sections import AliasEntry

__all__ = ["EMPTY", "count", "decode", "encode", "values"]

#: An empty file's text: no headings, no rows.
EMPTY = "[[],[]]"


def encode(entries: Sequence[AliasEntry], rel: str) -> str:
    """The stored text of file `rel`'s `entries`."""
    if not entries:
        return EMPTY
    headings: dict[str, int] = {}
    rows: list[list[object]] = []
    for e in entries:
        row: list[object] = [e.tag, e.alias, e.value, e.line, e.numbering, e.kind,
                             headings.setdefault(e.heading, len(headings))]
        if e.source != rel:
            row.append(e.source)
        rows.append(row)
    return json.dumps([list(headings), rows], ensure_ascii=False, separators=(",", ":"))


def decode(text: str, rel: str) -> list[AliasEntry]:
    """The entries `encode` stored for file `rel`."""
    headings, rows = json.loads(text)
    return [AliasEntry(r[0], r[1], r[2], r[7] if len(r) > 7 else rel, r[3], r[4], r[5], headings[r[6]])
            for r in rows]


def count(text: str) -> int:
    """How many names the stored text holds (a pin's description, kept beside them, is not one)."""
    return sum(1 for r in json.loads(text)[1] if r[5] != "description")


def values(text: str) -> list[str]:
    """The pins (entry values) the stored text maps names to, without building the entries."""
    return [r[2] for r in json.loads(text)[1]]
