"""Reading one datasheet into what the index stores: chunks, their term frequencies, pin aliases.

:func:`parse_file` is pure (a file in, a :class:`ParsedFile` out, nothing shared), so a large build
runs it in worker processes (:func:`parse_many`) while the indexing process only numbers terms and
writes rows. The term frequencies of a file travel as flat arrays over the file's own vocabulary
(local term numbers, weighted frequencies, distinct terms per chunk) instead of one dict per chunk:
that is cheap to pickle and cheap to append to the postings being built.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import subprocess
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, cast

from edge_agent.pins.datasheet import parse_aliases
from edge_agent.rag import aliasrows as _aliasrows
from edge_agent.rag import boards as _boards
from edge_agent.rag import text as _text
from edge_agent.rag.chunker import Section, chunk_markdown, chunk_pages, row_pins
from edge_agent.rag.files import DocFile, Problem, read_pdf, read_text

log = logging.getLogger("edge_agent.rag")

HEADING_WEIGHT = 3.0
#: Files to (re)read in one pass from which worker processes parse them: below it, starting the workers
#: (a fresh interpreter each, importing this package) costs more than it saves.
PARALLEL_FROM_FILES = 200
#: Files from which every core parses, busy or not (see :func:`_workers`).
ALL_CORES_FROM_FILES = 2000
#: Files a worker parses and sends back at a time (a worker that outruns the database writes blocks on its
#: full pipe, so memory stays bounded).
_BATCH = 8


@dataclass
class ParsedFile:
    """One datasheet as the index stores it. ``unchanged`` = its text hashes to the stored hash, so
    nothing else was computed; ``logged`` = its problems were already logged in this process."""

    sha256: str
    file_problems: list[Problem]
    unchanged: bool = False
    alias_problems: list[Problem] = field(default_factory=list)
    aliases_json: str = _aliasrows.EMPTY  # the entries as stored (edge_agent.rag.aliasrows)
    host: bool = False  # its entries number digital pins the Arduino way (edge_agent.rag.boards.is_host_board)
    sections: list[tuple[str, str, float]] = field(default_factory=list)  # heading, text, weighted length
    terms: list[str] = field(default_factory=list)  # the file's distinct terms, by local number
    tids: bytes = b""  # array('i'): local term number of each posting, chunk after chunk
    tfs: bytes = b""  # array('f'): weighted term frequency of each posting
    sizes: bytes = b""  # array('i'): postings (distinct terms) of each chunk
    logged: bool = True
    counted: list[dict[str, float]] | None = None  # parsed in this process: each chunk's counts, not packed

    def pack(self, counted: list[dict[str, float]]) -> None:
        """Set the flat arrays from each chunk's counts (and drop ``counted``)."""
        terms = dict.fromkeys(chain.from_iterable(counted))  # numbered in first-seen order, at C speed
        local = dict(zip(terms, range(len(terms)), strict=True))
        self.terms = list(terms)
        self.tids = array("i", map(local.__getitem__, chain.from_iterable(counted))).tobytes()
        self.tfs = array("f", chain.from_iterable(tf.values() for tf in counted)).tobytes()
        self.sizes = array("i", map(len, counted)).tobytes()
        self.counted = None

    def pack_numbered(self, counted: Numbered) -> None:
        """Set the flat arrays from a file counted by term number (:func:`count_numbered`): the same arrays
        :meth:`pack` makes of its counts (terms numbered in the order they first come)."""
        gids, sizes, tfs = counted
        distinct = dict.fromkeys(gids)
        local = dict(zip(distinct, range(len(distinct)), strict=True))
        self.terms = list(map(_text.term_numbers().names.__getitem__, distinct))
        self.tids = array("i", map(local.__getitem__, gids)).tobytes()
        self.tfs = tfs.tobytes()
        self.sizes = sizes.tobytes()
        self.counted = None

    def chunk_tfs(self) -> Iterator[dict[str, float]]:
        """Term -> weighted frequency of each chunk, in chunk order."""
        if self.counted is not None:  # packed first: the same dicts as from a worker's file, value for value
            self.pack(self.counted)
        tids, tfs, sizes = array("i"), array("f"), array("i")
        tids.frombytes(self.tids)
        tfs.frombytes(self.tfs)
        sizes.frombytes(self.sizes)
        at = 0
        for n in sizes:
            yield {self.terms[t]: tf for t, tf in zip(tids[at:at + n], tfs[at:at + n], strict=True)}
            at += n


def stem_words(rel: str) -> list[str]:
    """Tokens of a file's path without its suffix: they count as heading words of every chunk."""
    return _text.tokens(rel.rsplit(".", 1)[0].replace("/", " "))


def chunk_tf(stem: list[str], heading: str, body: str,
             hints: tuple[bool, bool] = (True, True)) -> tuple[dict[str, float], float]:
    """A chunk's weighted term frequencies (heading words HEADING_WEIGHT times) and its weighted length."""
    heading_tokens = stem + _text.tokens(heading, hints)
    return _weighted(_text.tokens(body, hints) + row_pins(body), heading_tokens)


def _weighted(body_tokens: list[str], heading_tokens: list[str]) -> tuple[dict[str, float], float]:
    tf = cast("dict[str, float]", Counter(body_tokens))  # counted at C speed; then used as a plain mapping
    for t in heading_tokens:
        tf[t] = tf.get(t, 0) + HEADING_WEIGHT
    return tf, len(body_tokens) + HEADING_WEIGHT * len(heading_tokens)


def _numbered_tokens(sections: Sequence[Section], stem: list[str], hints: tuple[bool, bool],
                     ids: Callable[[str, tuple[bool, bool]], list[int]], number: Callable[[str], int]
                     ) -> Iterator[tuple[list[int], list[int]]]:
    """Each chunk's numbered tokens: its words and its table rows' pins (`body`), and its heading's words after
    the path's (`head`); `ids` numbers a text's tokens, `number` one term. A long section's chunks share its
    heading, which is tokenised once."""
    stem_ids = list(map(number, stem))
    heads: dict[str, list[int]] = {}
    for s in sections:
        head = heads.get(s.heading)
        if head is None:
            head = heads[s.heading] = stem_ids + ids(s.heading, hints)
        body = ids(s.text, hints)
        pins = row_pins(s.text)
        if pins:
            body += map(number, pins)
        yield body, head


#: A file's postings by term number (:func:`edge_agent.rag.text.term_numbers`): the number of each, the postings
#: of each chunk, the weighted frequency of each; chunk after chunk, a chunk's terms in the order they first
#: come (its words, then its heading's), as each chunk's counts of :func:`parse_counts` hold them.
Numbered = tuple["array[int]", "array[int]", "array[float]"]


def count_numbered(stem: list[str], sections: Sequence[Section], hints: tuple[bool, bool]
                   ) -> tuple[Numbered, list[float]]:
    """Every chunk's weighted term frequencies and weighted length, as :func:`_weighted` gives them, counted
    by term number: a token is numbered by the tokeniser's memo of its spelling, so no term string is
    looked up per token, and the counts go to flat arrays as they are."""
    gids, sizes, tfs = array("i"), array("i"), array("f")
    dls: list[float] = []
    for body, head in _numbered_tokens(sections, stem, hints, _text.token_ids, _text.term_numbers().__getitem__):
        tf = cast("dict[int, float]", Counter(body))  # counted at C speed; then used as a plain mapping
        for t in head:
            tf[t] = tf.get(t, 0) + HEADING_WEIGHT
        gids.fromlist(list(tf))
        tfs.fromlist(list(tf.values()))
        sizes.append(len(tf))
        dls.append(len(body) + HEADING_WEIGHT * len(head))
    return (gids, sizes, tfs), dls


#: A file's tokens by raw-token number (:func:`edge_agent.rag.text.raw_numbers`), not yet counted: the number of
#: each token, chunk after chunk (a chunk's words and row pins, then its heading's words, the path's first), and
#: the length of each of those two runs, chunk after chunk. Counted into postings by a building worker
#: (:class:`edge_agent.rag.shards.ShardPostings`) many files at a time: a heading word weighs HEADING_WEIGHT.
RawCounted = tuple["array[int]", "array[int]"]


def count_raw(np: Any, stem: list[str], sections: Sequence[Section], hints: tuple[bool, bool]
              ) -> tuple[RawCounted, list[float]]:
    """Every chunk's tokens as raw-token numbers, and each chunk's weighted length as :func:`_weighted` gives
    it: a token is numbered by one lookup of its spelling, and nothing is counted per chunk here (the terms of
    each run are summed with numpy for the lengths)."""
    raws = _text.raw_numbers()
    rids, runs = array("i"), array("i")
    for body, head in _numbered_tokens(sections, stem, hints, _text.raw_ids, raws.of_term):
        rids.fromlist(body)
        rids.fromlist(head)
        runs.append(len(body))
        runs.append(len(head))
    per_run = [0] * len(runs)
    if rids:  # (an empty buffer is no array for older numpy)
        starts = np.frombuffer(raws.starts, dtype=np.int32)
        numbers = np.frombuffer(rids, dtype=np.int32)
        terms = np.zeros(len(numbers) + 1, dtype=np.int64)  # terms of the tokens before each token
        np.cumsum(starts[numbers + 1] - starts[numbers], out=terms[1:])
        bounds = np.zeros(len(runs) + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(runs, dtype=np.int32), out=bounds[1:])
        per_run = (terms[bounds[1:]] - terms[bounds[:-1]]).tolist()
    dls = [body + HEADING_WEIGHT * head for body, head in zip(per_run[0::2], per_run[1::2], strict=True)]
    return (rids, runs), dls


def parse_file(f: DocFile, max_file_bytes: int, old_sha: str | None = None, pack: bool = True) -> ParsedFile:
    """Read, hash, chunk and tokenise one file and parse its pin aliases (only read and hash it when its
    text hashes to `old_sha`). `pack` = False keeps each chunk's counts as they are (``counted``), for this
    process: packing them is for a transfer from a worker."""
    if not pack:
        pf, counted = parse_counts(f, max_file_bytes, old_sha)
        if counted:
            pf.counted = counted
        return pf
    pf, numbered = parse_numbered(f, max_file_bytes, old_sha)
    if numbered is not None and pf.sections:
        pf.pack_numbered(numbered)
    return pf


def parse_counts(f: DocFile, max_file_bytes: int, old_sha: str | None = None
                 ) -> tuple[ParsedFile, list[dict[str, float]]]:
    """:func:`parse_file` without the packing of the term frequencies: the file (its ``terms``, ``tids``,
    ``tfs`` and ``sizes`` left empty) and each chunk's term -> weighted frequency, counted chunk by chunk."""
    read = _read(f, max_file_bytes, old_sha)
    if isinstance(read, ParsedFile):
        return read, []
    pf, sections, stem, hints = read
    counted: list[dict[str, float]] = []
    rows = []
    headings: dict[str, list[str]] = {}  # a long section's chunks share its heading: tokenised once
    for s in sections:
        heading = headings.get(s.heading)
        if heading is None:
            heading = headings[s.heading] = stem + _text.tokens(s.heading, hints)
        tf, dl = _weighted(_text.tokens(s.text, hints) + row_pins(s.text), heading)
        counted.append(tf)
        rows.append((s.heading, s.text, dl))
    pf.sections = rows
    return pf, counted


def parse_numbered(f: DocFile, max_file_bytes: int, old_sha: str | None = None
                   ) -> tuple[ParsedFile, Numbered | None]:
    """:func:`parse_counts` counted by term number (:func:`count_numbered`): the file (``terms``, ``tids``,
    ``tfs`` and ``sizes`` left empty) and its postings, None when it is unchanged."""
    read = _read(f, max_file_bytes, old_sha)
    if isinstance(read, ParsedFile):
        return read, None
    pf, sections, stem, hints = read
    numbered, dls = count_numbered(stem, sections, hints)
    pf.sections = [(s.heading, s.text, dl) for s, dl in zip(sections, dls, strict=True)]
    return pf, numbered


def parse_raw(np: Any, f: DocFile, max_file_bytes: int) -> tuple[ParsedFile, RawCounted | None]:
    """:func:`parse_numbered` with the tokens left uncounted (:func:`count_raw`): the file (``terms``, ``tids``,
    ``tfs`` and ``sizes`` left empty) and its tokens."""
    read = _read(f, max_file_bytes, None)
    if isinstance(read, ParsedFile):
        return read, None
    pf, sections, stem, hints = read
    counted, dls = count_raw(np, stem, sections, hints)
    pf.sections = [(s.heading, s.text, dl) for s, dl in zip(sections, dls, strict=True)]
    return pf, counted


def _read(f: DocFile, max_file_bytes: int, old_sha: str | None
          ) -> ParsedFile | tuple[ParsedFile, list[Section], list[str], tuple[bool, bool]]:
    """Read, hash and chunk a file and parse its pin aliases: the file (its chunks' lengths not yet known),
    its chunks, path words and spelling hints; only the file when its text hashes to `old_sha`."""
    if f.kind == "pdf":
        pages, file_problems = read_pdf(f)
        text = "\n\n".join(t for _, t in pages) if pages else None
    else:
        pages = None
        text, file_problems = read_text(f, max_file_bytes)
    sha = hashlib.sha256((text or "").encode("utf-8", "surrogatepass")).hexdigest()
    if sha == old_sha:
        return ParsedFile(sha, file_problems, unchanged=True)
    sections = [] if text is None else (chunk_pages(pages) if pages else chunk_markdown(text))
    entries, parsed = parse_aliases(text, f.rel, f.board) if text else ([], [])
    stem = stem_words(f.rel)
    hints = _text.spelling_hints(text) if text else (False, False)
    pf = ParsedFile(sha, file_problems, alias_problems=[Problem(p.source, p.kind, p.message) for p in parsed],
                    aliases_json=_aliasrows.encode(entries, f.rel),
                    host=_boards.is_host_board(e.alias for e in entries))
    return pf, sections, stem, hints


def _workers(n_files: int) -> int:
    """Worker processes worth starting for `n_files` files (fewer than 2 means parse here). From
    ALL_CORES_FROM_FILES files one per core, up to 4, however busy the machine is: such a build is minutes
    of parsing, beside which the workers' start-up and the transfer of their results are small, and on a
    shared machine each process gets its share of a core. Below that, one per idle core: a smaller build on
    a busy machine gains little wall time and would pay the start-up for it."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    if n_files >= ALL_CORES_FROM_FILES:
        return min(cores, 4)
    try:
        busy = os.getloadavg()[0]
    except OSError:  # load average not available
        busy = 0.0
    return max(0, min(cores, 4, int(cores - busy + 0.5)))


def parse_many(files: Sequence[DocFile], olds: Sequence[str | None], max_file_bytes: int,
               parallel_from: int | None = None) -> Generator[ParsedFile, None, None]:
    """:func:`parse_file` of each file, in order; in worker processes when there are many files and more
    than one core. A worker that cannot start or stops early leaves its files to this process."""
    threshold = PARALLEL_FROM_FILES if parallel_from is None else parallel_from
    n_workers = _workers(len(files))
    done = 0
    if n_workers > 1 and len(files) >= threshold:
        workers = _start(files, olds, max_file_bytes, n_workers)
        try:
            while workers and done < len(files):
                batch = _receive(workers[(done // _BATCH) % len(workers)])
                if batch is None:
                    break
                for got in batch:
                    done += 1
                    yield got
        finally:
            for w in workers:
                stop_worker(w)
    for f, old in zip(files[done:], olds[done:], strict=True):
        yield parse_file(f, max_file_bytes, old, pack=False)


def _start(files: Sequence[DocFile], olds: Sequence[str | None], max_file_bytes: int,
           n: int) -> list[subprocess.Popen[bytes]]:
    """Worker processes, each given every n-th batch of files. A fresh interpreter runs this module, not
    a fork of the caller (which may be a daemon with threads holding locks) nor a re-import of the
    caller's main script (what multiprocessing's spawn does)."""
    env = worker_env()
    batches = [(start, files[start:start + _BATCH], olds[start:start + _BATCH])
               for start in range(0, len(files), _BATCH)]
    workers: list[subprocess.Popen[bytes]] = []
    for k in range(n):
        try:
            proc = subprocess.Popen(worker_command("edge_agent.rag.parse"), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            assert proc.stdin is not None
            pickle.dump((max_file_bytes, batches[k::n]), proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            proc.stdin.close()
        except OSError as exc:
            log.info("datasheet index: parsing in this process (worker process not started: %s)", exc)
            for w in workers:
                stop_worker(w)
            return []
        workers.append(proc)
    return workers


def worker_command(module: str) -> list[str]:
    """The command line of a worker process running `module`. ``-P``: the directory the caller runs in is not put
    first on the worker's import path (``-m`` puts it there), so a directory holding another copy of edge_agent (a
    checkout, an older release) never gives the worker code other than this process's, which :func:`worker_env`
    puts on its path."""
    return [sys.executable, "-P", "-m", module]


def worker_env() -> dict[str, str]:
    """The environment of a worker process: this one's, with this package importable."""
    package_root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}


def _receive(proc: subprocess.Popen[bytes]) -> list[ParsedFile] | None:
    """The next batch a worker parsed, or None when it stopped early."""
    assert proc.stdout is not None
    try:
        got: list[ParsedFile] = pickle.load(proc.stdout)
    except (EOFError, pickle.UnpicklingError, OSError) as exc:
        log.info("datasheet index: a parsing worker stopped (%s, exit status %s); parsing the rest here",
                 type(exc).__name__, proc.poll())
        return None
    return got


def stop_worker(proc: subprocess.Popen[bytes] | None) -> None:
    """End a worker process (parsing or building) and close its pipe; None is a worker never started."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def _worker_main() -> None:
    """A parsing worker: reads (size cap, batches) from stdin, writes each batch's parsed files to stdout."""
    logging.disable(logging.CRITICAL)  # problems travel with the results and are logged by the indexing process
    max_file_bytes, batches = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer
    for _start_at, files, olds in batches:
        parsed = []
        for f, old in zip(files, olds, strict=True):
            got = parse_file(f, max_file_bytes, old)
            got.logged = False
            parsed.append(got)
        pickle.dump(parsed, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


if __name__ == "__main__":  # run as `python -m`: work through the module's real name, so results unpickle
    from edge_agent.rag.parse import _worker_main as _run

    _run()
