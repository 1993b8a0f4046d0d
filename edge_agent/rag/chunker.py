"""Heading-aware chunking of Markdown and plain-text datasheets.

Each chunk belongs to one section and carries its heading path (``Board notes > LEDs and buttons``).
A section longer than ``max_chars`` is split between blocks: blank-line paragraphs, whole tables and
whole code fences. A table that alone exceeds the limit is split between rows, and every part repeats
the table's header row, so no row is ever cut. Only a single oversize paragraph is split on lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Version of the chunking and of what a chunk indexes beside its words (part of the index signature: a change
#: rebuilds persisted indexes).
CHUNK_RULES = 2
#: ZeroClaw's chunker budget (512 tokens x 4 bytes); big enough for a full pin table of one header.
MAX_CHARS = 2048
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Section:
    """One chunk's worth of a document."""

    heading: str  # heading path joined with " > " ("" before the first heading)
    text: str


def _is_table_line(line: str) -> bool:
    s = line.strip()
    return s.startswith("|") or s.count(" | ") >= 1


def _blocks(lines: list[str]) -> list[list[str]]:
    """Group section lines into paragraphs, tables and code fences (blank lines separate them)."""
    blocks: list[list[str]] = []
    cur: list[str] = []
    in_fence = False
    last_table: bool | None = None  # whether cur's last line is a table line (None: not known yet)
    for line in lines:
        s = line.strip()
        if s.startswith("```"):
            cur.append(line)
            in_fence = not in_fence
            last_table = None
            continue
        if in_fence:
            cur.append(line)
            last_table = None
            continue
        if not s:
            if cur:
                blocks.append(cur)
                cur = []
            continue
        table = s.startswith("|") or " | " in s  # what _is_table_line says, from the stripped line at hand
        # a table starting right after prose without a blank line is still its own block
        if cur and table != (_is_table_line(cur[-1]) if last_table is None else last_table):
            blocks.append(cur)
            cur = []
        cur.append(line)
        last_table = table
    if cur:
        blocks.append(cur)
    return blocks


def _split_block(block: list[str], max_chars: int) -> list[str]:
    text = "\n".join(block)
    if len(text) <= max_chars:
        return [text]
    if _is_table_line(block[0]) and len(block) > 2:
        sep_row = 1 if len(block) > 1 and set(block[1].replace("|", "").strip()) <= set("-: ") else -1
        header = block[: sep_row + 1] if sep_row == 1 else block[:1]
        rows = block[len(header):]
        parts: list[str] = []
        cur: list[str] = list(header)
        head_chars = len("\n".join(header))
        chars = head_chars  # len("\n".join(cur)), kept as rows are added
        for row in rows:
            if len(cur) > len(header) and chars + 1 + len(row) > max_chars:
                parts.append("\n".join(cur))
                cur = list(header)
                chars = head_chars
            cur.append(row)
            chars += 1 + len(row)
        parts.append("\n".join(cur))
        return parts
    parts = []
    cur = []
    chars = -1  # len("\n".join(cur)) once cur holds a line
    for line in block:
        if cur and chars + 1 + len(line) > max_chars:
            parts.append("\n".join(cur))
            cur = []
            chars = -1
        cur.append(line)
        chars += 1 + len(line)
    if cur:
        parts.append("\n".join(cur))
    return parts


def _pack(body_lines: list[str], max_chars: int) -> list[str]:
    pieces: list[str] = []
    for block in _blocks(body_lines):
        pieces.extend(_split_block(block, max_chars))
    chunks: list[str] = []
    cur = ""
    for piece in pieces:
        if cur and len(cur) + 2 + len(piece) > max_chars:
            chunks.append(cur)
            cur = piece
        else:
            cur = f"{cur}\n\n{piece}" if cur else piece
    if cur:
        chunks.append(cur)
    return chunks


def chunk_markdown(text: str, max_chars: int = MAX_CHARS) -> list[Section]:
    """Split a Markdown/plain-text document into sections with heading paths."""
    path: list[tuple[int, str]] = []
    out: list[Section] = []
    body: list[str] = []
    heading = ""
    in_fence = False

    def flush() -> None:
        for chunk in _pack(body, max_chars):
            out.append(Section(heading, chunk))

    for line in text.split("\n"):
        if "```" in line and line.strip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence or not line.startswith("#") else _HEADING.match(line)
        if m:
            flush()
            body = []
            level = len(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, m.group(2).strip()))
            heading = " > ".join(h for _, h in path)
            continue
        body.append(line)
    flush()
    if not out and heading:
        out.append(Section(heading, ""))  # a document that is only headings
    return out


def chunk_pages(pages: list[tuple[int, str]], max_chars: int = MAX_CHARS) -> list[Section]:
    """Chunk extracted PDF pages; the heading path is the page number."""
    out: list[Section] = []
    for number, text in pages:
        for chunk in _pack(text.replace("\r\n", "\n").split("\n"), max_chars):
            out.append(Section(f"page {number}", chunk))
    return out


_GPIO_HEAD = re.compile(r"^\|\s*gpio\s*\|", re.IGNORECASE | re.MULTILINE)
_NUMBERED_ROW = re.compile(r"^\|\s*(\d{1,2})\s*\|")


def row_pins(text: str) -> list[str]:
    """Pin tokens a table writes only as its row numbers: in a table whose first column is headed ``GPIO``
    (the alternate-function tables of the Pi SoCs), row ``22`` is GPIO22, token ``gpio22`` (the tokenizer's
    spelling of every GPIO name). Indexed with the chunk, so the row is found by the name a question uses;
    empty for every other chunk."""
    if "GPIO |" not in text and "gpio |" not in text and "Gpio |" not in text:
        return []
    out: list[str] = []
    in_table = numbered = False
    for line in text.split("\n"):
        if not line.startswith("|"):
            in_table = False
            continue
        if not in_table:
            in_table = True
            numbered = _GPIO_HEAD.match(line) is not None
        elif numbered and (m := _NUMBERED_ROW.match(line)):
            out.append(f"gpio{int(m.group(1))}")
    return out
