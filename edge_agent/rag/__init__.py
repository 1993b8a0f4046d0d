"""HardwareRag: the datasheet index behind hardware questions.

``HardwareRag.load(datasheet_dir, index_dir=state/"rag")`` walks the directory (``.md``/``.txt`` in any
letter case, ``.pdf`` with the ``pdf`` extra), chunks each file on its Markdown headings and ranks
chunks with BM25 over normalised tokens (see :mod:`edge_agent.rag.text` and
:mod:`edge_agent.rag.postings`); heading words weigh three times body words and chunks covering more
of the query's distinct terms rank higher. The index (chunks, files and per-term postings in SQLite)
is persisted in ``index_dir`` and reused on the next start: only files whose size/mtime changed are
re-read, and only those whose content hash changed are re-chunked; :meth:`HardwareRag.refresh` does
the same for a loaded index in place. Without ``index_dir`` it lives in an in-memory database.

Board tag = file stem, lowercased; ``generic``/``generic_*``/``generic-*`` stems and files under
``_generic/`` have no board and answer every query. Naming boards in a query multiplies the score of
their chunks (and of files tagged with a ``datasheet_tags`` entry of the board) by
:data:`BOARD_BOOST`: a board's chunk wins a close race but never hides a clearly better answer from
another file. Ties break on source path, then chunk position.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from edge_agent.errors import DatasheetError, UnknownBoardError
from edge_agent.paths import private_dir
from edge_agent.pins import PinIndex, name_key
from edge_agent.pins.datasheet import AliasEntry, parse_aliases
from edge_agent.rag import aliasrows as _aliasrows
from edge_agent.rag import query as _query
from edge_agent.rag import text as _text
from edge_agent.rag.files import MAX_FILE_BYTES, Problem, read_pdf, read_text, scan
from edge_agent.rag.parse import HEADING_WEIGHT
from edge_agent.rag.search import BOARD_BOOST, COMPACT_CHARS, Chunk, Search
from edge_agent.rag.store import IndexStore

__all__ = ["BOARD_BOOST", "COMPACT_CHARS", "HEADING_WEIGHT", "Chunk", "FileInfo", "HardwareRag", "PinMatch", "Problem",
           "pin_index_for"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileInfo:
    """An indexed (or skipped) datasheet file."""

    source: str
    board: str | None
    kind: str
    size: int
    chunks: int
    aliases: int


@dataclass(frozen=True)
class PinMatch:
    """A pin name of a board that the query names, as the pin index resolved it."""

    board: str
    alias: str  # the name as the datasheet or board file writes it
    pin: str  # the native pin name
    detail: str  # its headers and functions, and the datasheet's own value when it differs from the pin name

    def line(self) -> str:
        """The line of the context's pin block: `board: alias = pin NAME (detail)`."""
        return f"{self.board}: {self.alias} = pin {self.pin}" + (f" ({self.detail})" if self.detail else "")

    def record(self) -> dict[str, str]:
        return {"board": self.board, "alias": self.alias, "pin": self.pin, "detail": self.detail}


class HardwareRag(IndexStore):
    """Datasheet index: search, agent context, pin aliases."""

    def __init__(self, root: Path | None, conn: sqlite3.Connection, *, compact: bool, db_path: Path | None) -> None:
        super().__init__(root, conn, db_path=db_path)
        self.compact = compact
        self._alias_entries: list[AliasEntry] | None = None
        self._pin_index: PinIndex | None = None
        self._search = Search(self, self.pin_index)

    @property
    def weights(self) -> _query.Weights:
        """The reranking's multipliers (:class:`.query.Weights`); a fitting run tries others through this."""
        return self._search.weights

    @weights.setter
    def weights(self, value: _query.Weights) -> None:
        self._search.weights = value

    def _after_sync(self) -> None:
        self._search.forget()
        self._alias_entries = None
        self._pin_index = None

    # --- loading --------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: str | Path | None,
        *,
        index_dir: Path | None = None,
        compact: bool = False,
        max_file_bytes: int = MAX_FILE_BYTES,
        progress: Callable[[int, int], None] | None = None,
    ) -> HardwareRag:
        """Index the datasheets under `path` (reusing a persisted index in `index_dir` when present).

        A missing or empty directory gives an empty index, never an error.
        """
        root = Path(path) if path else None
        db_path: Path | None = None
        if index_dir is not None:
            private_dir(index_dir)
            key = str(root.resolve()) if root else "-"
            db_path = Path(index_dir) / f"rag-{hashlib.sha256(key.encode()).hexdigest()[:12]}.sqlite"
        conn = cls._open(db_path, max_file_bytes)
        rag = cls(root, conn, compact=compact, db_path=db_path)
        rag._max_file_bytes = max_file_bytes
        try:
            rag._sync(max_file_bytes, progress)
            rag._prefer_wal()
            rag._serving_cache()
        except sqlite3.OperationalError as exc:  # e.g. another process holds the index longer than the timeout
            conn.close()
            raise DatasheetError(f"datasheet index {db_path} is busy or not writable ({exc}); "
                                 "retry, or point --state at a writable directory") from exc
        return rag

    # --- health ---------------------------------------------------------------------------------

    @property
    def problems(self) -> list[Problem]:
        """Warnings from the last load (bad files, malformed alias lines, duplicate boards)."""
        return list(self._problems)

    def files(self) -> list[FileInfo]:
        """Every file in the index, sorted by path (skipped files appear with zero chunks)."""
        with self._lock:
            rows = self._conn.execute("SELECT rel, board, kind, size, nchunks, aliases FROM files ORDER BY rel")
            return [FileInfo(r[0], r[1], r[2], r[3], r[4], _aliasrows.count(r[5])) for r in rows]

    def boards(self) -> list[str]:
        """Board tags present in the index, sorted."""
        return sorted(self._postings.boards())

    # --- retrieval -------------------------------------------------------------------------------

    def search(self, query: str, boards: Sequence[str] = (), limit: int | None = None) -> list[Chunk]:
        """Best chunks for `query`, best first (:mod:`edge_agent.rag.search`); chunks of `boards` get the
        board boost. At most :data:`.search.COMPACT_LIMIT` shortened results in compact mode.

        Raises:
            UnknownBoardError: a board is neither a board file nor a datasheet tag.
        """
        return self._search.search(query, boards, limit, compact=self.compact)

    def spelt(self, query: str) -> str:
        """`query` as the search reads it: a word no datasheet holds, five letters or more, is read as the word one
        typing slip away that they hold most (:mod:`edge_agent.rag.spelling`); `query` itself when none is."""
        return self._search.spelt(query)

    def detect_boards(self, query: str) -> list[str]:
        """Boards and parts a question names informally ("the f401", "pi 4", "bme280"), as datasheet tags."""
        return self._search.detect_boards(query)

    def pin_boards(self, query: str, configured: Sequence[str] = ()) -> list[str]:
        """Boards and parts that have a chip-specific pin the question names, as datasheet tags; a pin one of
        the `configured` boards (or the shared files they answer to) has is theirs and points nowhere else."""
        return self._search.pin_boards(query, configured)

    def context(self, query: str, boards: Sequence[str] = (), pins: PinIndex | None = None) -> str:
        """The agent context block: `[Pin aliases for query]` then `[Hardware documentation]`.

        `pins` is the pin index to name pins with (default: the one built from this index's datasheets).
        """
        return self.context_and_pins(query, boards, pins)[0]

    def context_and_pins(self, query: str, boards: Sequence[str] = (),
                         pins: PinIndex | None = None) -> tuple[str, list[PinMatch]]:
        """The agent context block and the pin matches its pin block was written from."""
        matches = self.pin_matches(query, boards, pins)
        pin_lines = "\n".join(m.line() for m in matches)
        chunks = self.search(query, boards)
        docs = ""
        if chunks:
            docs = "[Hardware documentation]\n" + "".join(
                f"--- {c.source}{f' page {c.page}' if c.page else ''} ({c.board or 'generic'}) ---\n"
                + (f"# {c.heading}\n" if c.heading else "") + f"{c.text}\n\n" for c in chunks)
        block = (f"[Pin aliases for query]\n{pin_lines}\n\n" if pin_lines else "") + docs
        return (block + "\n" if block else ""), matches

    def pin_context(self, query: str, boards: Sequence[str], pins: PinIndex | None = None) -> str:
        """Lines `board: alias = pin NAME (...)` for aliases and labels whose every word appears in the query."""
        return "\n".join(m.line() for m in self.pin_matches(query, boards, pins))

    def pin_matches(self, query: str, boards: Sequence[str], pins: PinIndex | None = None) -> list[PinMatch]:
        """The boards' LED and button labels and datasheet names whose every word appears in the query, with
        the pin each names, labels first, in each board's order."""
        index = pins or self.pin_index()
        words = {w.lower() for w in _text.tokens(query)} | {name_key(w) for w in query.split()}
        words |= {w.lower().strip("?,.;:!'\"()") for w in query.split()}
        found: list[PinMatch] = []
        for b in boards:
            try:
                amap = index.aliases_for(b)
                board = index.board(b)
            except UnknownBoardError:
                continue
            labels = {} if board is None else {**{k: board.pin(v) for k, v in board.leds.items()},
                                               **{k: board.pin(v) for k, v in board.buttons.items()}}
            seen: set[tuple[str, str]] = set()
            for alias, pin in [*labels.items(), *amap.items()]:
                parts = [p for p in alias.lower().replace("-", "_").split("_") if p]
                if not parts:
                    continue
                whole = alias.lower() in words or name_key(alias) in words
                if not whole and not (len(parts) > 1 and all(_match_word(p, words) for p in parts)):
                    continue
                if (alias.lower(), pin.name) in seen:
                    continue
                seen.add((alias.lower(), pin.name))
                detail = ", ".join([*pin.headers, *pin.functions])
                raw = f"; datasheet value {pin.raw}" if pin.raw and pin.raw != pin.name else ""
                found.append(PinMatch(b, alias, pin.name, f"{detail}{raw}"))
        return found

    def alias_entries(self) -> list[AliasEntry]:
        """Every pin-alias line parsed from the datasheets, in path order."""
        if self._alias_entries is None:
            with self._lock:
                rows = self._conn.execute("SELECT rel, aliases FROM files ORDER BY rel").fetchall()
            self._alias_entries = [e for rel, text in rows for e in _aliasrows.decode(text, rel)]
        return list(self._alias_entries)

    def pin_index(self) -> PinIndex:
        """The pin index of the board files and these datasheets' names (built once per load)."""
        with self._lock:
            if self._pin_index is None:
                self._pin_index = PinIndex(self.alias_entries())
            return self._pin_index

    def aliases(self, board: str) -> dict[str, str]:
        """A board's merged datasheet names: name -> value as written (conflicts resolved, see edge_agent.pins)."""
        return {alias: pin.raw or pin.name for alias, pin in self.pin_index().aliases_for(board).items()}

    def _find_source(self, source: str) -> str:
        """The indexed path `source` names: exact, else the one path (or file name) equal ignoring case."""
        with self._lock:
            rels: list[str] = [r[0] for r in self._conn.execute("SELECT rel FROM files ORDER BY rel")]
        if source in rels:
            return source
        want = source.strip().lstrip("./").lower()
        hits = [r for r in rels if r.lower() == want] or [r for r in rels if r.rsplit("/", 1)[-1].lower() == want]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise DatasheetError(f"{source!r} matches several datasheets ({', '.join(hits)}); pass the full path")
        return source

    def read(self, source: str, heading: str | None = None) -> str:
        """The text of one indexed file, or of its section(s) whose heading path ends with `heading`.

        `source` is matched exactly, else ignoring letter case (and by file name alone when one file fits).
        """
        source = self._find_source(source)
        with self._lock:
            rows = self._conn.execute("SELECT heading, text FROM chunks WHERE rel = ? ORDER BY idx",
                                      (source,)).fetchall()
            exists = self._conn.execute("SELECT 1 FROM files WHERE rel = ?", (source,)).fetchone()
        if not exists:
            names = [f.source for f in self.files()]
            raise DatasheetError(f"no datasheet {source!r} in the index; known: {', '.join(names) or '(none)'}")
        if heading is None:
            return _join_sections(rows)
        want = heading.strip().lower()
        picked = [r for r in rows if r[0].lower().endswith(want) or r[0].lower().split(" > ")[-1] == want]
        if not picked:
            headings = sorted({r[0].split(" > ")[-1] for r in rows if r[0]})
            raise DatasheetError(f"{source} has no section {heading!r}; sections: {', '.join(headings)}")
        return _join_sections(picked)



def _match_word(part: str, words: set[str]) -> bool:
    return part in words or _text.norm(part) in words


def _join_sections(rows: list[tuple[str, str]]) -> str:
    out: list[str] = []
    last = None
    for heading, body in rows:
        if heading != last and heading:
            out.append(f"# {heading}")
        last = heading
        out.append(body)
    return "\n\n".join(out).strip() + "\n"


def pin_index_for(root: Path | str) -> PinIndex:
    """A pin index of the board files and the datasheet names under `root`, without building a search index."""
    entries: list[AliasEntry] = []
    files, _ = scan(Path(root))
    for f in files:
        if f.kind == "pdf":
            pages, _ = read_pdf(f)
            text = "\n".join(t for _, t in pages or [])
        else:
            text = read_text(f)[0] or ""
        entries.extend(parse_aliases(text, f.rel, f.board)[0])
    return PinIndex(entries)
