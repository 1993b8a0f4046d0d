"""A faithful Python reimplementation of the Revka runtime's datasheet retrieval.

Used only as the baseline in tests and benchmarks. Kept deliberately as Revka does it:
extensions `md`/`txt` matched case-sensitively, directory order as the OS returns it, one chunk per
file (Revka's chunker does not split files), whitespace-split query words longer than 2 bytes counted with
repeats, substring matching against the lowercased chunk, +2.0 board boost, stable sort, cut to limit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RevkaChunk:
    source: str
    board: str | None
    content: str
    score: float = 0.0


def _board_of(path: Path) -> str | None:
    stem = path.stem
    if stem == "generic" or stem.startswith("generic_"):
        return None
    if path.parent.name == "_generic":
        return None
    return stem


class RevkaRag:
    """Keyword-overlap index over whole files."""

    def __init__(self, chunks: list[RevkaChunk], aliases: dict[str, dict[str, int]]) -> None:
        self.chunks = chunks
        self.aliases = aliases

    @classmethod
    def load(cls, base: Path) -> RevkaRag:
        chunks: list[RevkaChunk] = []
        aliases: dict[str, dict[str, int]] = {}
        if not base.is_dir():
            return cls(chunks, aliases)
        for dirpath, _dirnames, filenames in os.walk(base, followlinks=True):  # unsorted, like read_dir
            for name in filenames:
                path = Path(dirpath) / name
                if path.suffix not in (".md", ".txt"):
                    continue
                try:
                    content = path.read_bytes().decode("utf-8")
                except (OSError, UnicodeDecodeError):
                    continue  # skipped silently
                content = content.strip()
                if not content:
                    continue
                board = _board_of(path)
                chunks.append(RevkaChunk(str(path.relative_to(base)), board, content))
                parsed = parse_pin_aliases(content)
                if board and parsed:
                    aliases[board] = parsed
        return cls(chunks, aliases)

    def retrieve(self, query: str, boards: tuple[str, ...] | list[str], limit: int) -> list[RevkaChunk]:
        if not self.chunks or limit == 0:
            return []
        terms = [w for w in query.lower().split() if len(w.encode()) > 2]
        scored: list[RevkaChunk] = []
        for chunk in self.chunks:
            lowered = chunk.content.lower()
            score = float(sum(1 for t in terms if t in lowered))
            if score > 0:
                if chunk.board is not None and chunk.board in boards:
                    score += 2.0
                scored.append(RevkaChunk(chunk.source, chunk.board, chunk.content, score))
        scored.sort(key=lambda c: -c.score)  # stable: ties keep load order
        return scored[:limit]


def parse_pin_aliases(content: str) -> dict[str, int]:
    """The reference alias parser: substring markers, integer-only values, later wins."""
    lower = content.lower()
    start = -1
    for marker in ("## pin aliases", "## pin alias", "## pins"):
        start = lower.find(marker)
        if start >= 0:
            break
    if start < 0:
        return {}
    section = content[start:]
    first_nl = section.find("\n")
    rest = section[first_nl + 1:] if first_nl >= 0 else ""
    end = rest.find("\n## ")
    body = rest if end < 0 else rest[:end]
    out: dict[str, int] = {}
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("|"):
            cells = line.split("|")
            if len(cells) < 3:
                continue
            alias = cells[1].strip().lower().replace(" ", "_")
            pin = cells[2].strip()
            if alias in ("alias", "pin") or pin == "pin" or "---" in alias or "---" in pin:
                continue
        else:
            sep = ":" if ":" in line else ("=" if "=" in line else None)
            if sep is None:
                continue
            alias, _, pin = line.partition(sep)
            alias = alias.strip().lower().replace(" ", "_")
            pin = pin.strip()
        try:
            value = int(pin.lstrip("+"))
        except ValueError:
            continue
        if value < 0 or not alias:
            continue
        out[alias] = value
    return out
