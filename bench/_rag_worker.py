"""Where a building worker's CPU goes, file by file: the stages of a cold build's shard worker, timed apart.

A large cold build runs in worker processes (edge_agent/rag/shards.py), so a profile of the indexing process
shows none of it. This runs a worker's loop here over files of the generated 10,000-file corpus of bench/rag.py
(every fifth file by default, so the vendors and shared datasheets mix as in the whole), with the CPU time of
each stage (time.process_time), then the worker itself (shards._worker_main, fed through in-memory pipes) for
its total CPU per file and its peak memory. The staged loop repeats the worker's steps with the same functions;
a change to the worker's loop belongs here too.

    .venv/bin/python -m bench._rag_worker [FILES]

Measured on the 2-core development machine (2,000 files, CPU ms per file, two runs alternated in one session; the
machine was shared and loaded, so the ratios are what count). Before the round's build changes (main with them
reverted, the other lanes' changes kept; its worker's loop timed the same way) -> after: read and hash 0.077 ->
0.058, chunking 0.146 -> 0.142, pin names 0.539 -> 0.479, pre-check and path words 0.071 -> 0.042, tokens
(counted per chunk before, numbered only after) 1.24 -> 0.99, alias JSON 0.107 -> 0.123, SQLite rows 0.117 ->
0.115, postings (grouping, encoding, parts; the tokens are counted there after) 0.348 -> 0.373; in all 2.65 ->
2.32 (0.88). The whole worker over its 5,000 files of the 10,000: 0.87 to 0.88 times the CPU of before, peak
132 MB against 126 MB.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

STAGES = ("read and hash", "chunking", "pin names", "pre-check and path words", "tokens", "alias JSON", "SQLite rows",
          "postings")


def staged(files: list[object], max_file_bytes: int) -> dict[str, float]:
    """CPU seconds of each stage of a worker's loop over `files` (DocFile), and of all of them."""
    from edge_agent.pins.datasheet import parse_aliases
    from edge_agent.rag import aliasrows, parse, shards
    from edge_agent.rag import text as _text
    from edge_agent.rag.boards import is_host_board
    from edge_agent.rag.chunker import chunk_markdown
    from edge_agent.rag.files import DocFile, read_text
    from edge_agent.rag.postings import _numpy

    np = _numpy()
    if np is None:
        raise SystemExit("the staged loop is the numpy worker's: install numpy")
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(os.path.join(tmp, "shard.sqlite"), isolation_level=None)
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(shards.SHARD_DDL)
        conn.execute("BEGIN")
        postings = shards.ShardPostings(np, conn, _text.term_numbers().names)
        spent = dict.fromkeys(STAGES, 0)
        clock = time.process_time_ns
        next_id = 1
        for f in files:
            assert isinstance(f, DocFile)
            t0 = clock()
            text, problems = read_text(f, max_file_bytes)
            text = text or ""
            sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            t1 = clock()
            sections = chunk_markdown(text)
            t2 = clock()
            entries, _alias_problems = parse_aliases(text, f.rel, f.board)
            t3 = clock()
            stem, hints = parse.stem_words(f.rel), _text.spelling_hints(text)
            t4 = clock()
            counted, dls = parse.count_raw(np, stem, sections, hints)
            t5 = clock()
            aliases_json = aliasrows.encode(entries, f.rel)
            host = is_host_board(e.alias for e in entries)
            t6 = clock()
            conn.executemany(f"INSERT INTO chunks (id, {shards._CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             [(next_id + k, f.rel, k, f.board, s.heading, s.text, dl, b"")
                              for k, (s, dl) in enumerate(zip(sections, dls, strict=True))])
            row = shards.file_row(f, sha, problems, aliases_json, len(sections), host)
            conn.execute(f"INSERT INTO files ({shards._FILES_COLUMNS}) VALUES ({', '.join('?' * len(row))})", row)
            t7 = clock()
            postings.add(next_id, counted)
            t8 = clock()
            next_id += len(sections)
            for stage, ns in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7),
                                 strict=True):
                spent[stage] += ns
        t0 = clock()
        postings.write()
        conn.execute("COMMIT")
        spent["postings"] += clock() - t0
        conn.close()
    return {stage: ns / 1e9 for stage, ns in spent.items()}


def whole_worker(files: list[object], max_file_bytes: int) -> tuple[float, float]:
    """(CPU seconds, peak resident MB of this process) of the building worker itself over `files`."""
    from edge_agent.rag import shards

    with tempfile.TemporaryDirectory() as tmp:
        job = pickle.dumps((max_file_bytes, files, os.path.join(tmp, "shard.sqlite"), 10**9))
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(job)), io.TextIOWrapper(io.BytesIO())
        try:
            started = time.process_time()
            shards._worker_main()
            cpu = time.process_time() - started
        finally:
            sys.stdin, sys.stdout = stdin, stdout
    return cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 2000
    from bench.rag import _large_corpus
    from edge_agent.rag import text as _text
    from edge_agent.rag.files import MAX_FILE_BYTES, scan

    corpus, _size = _large_corpus()
    every, _ = scan(Path(corpus))
    files: list[object] = list(every[::max(1, len(every) // n)][:n])
    shard = list(every[:len(every) // 2])  # a worker's shard of a build in two processes
    cpu, peak = whole_worker(shard, MAX_FILE_BYTES)  # first: the peak is the worker's
    print(f"the worker over {len(shard)} files: {cpu / len(shard) * 1000:.3f} ms/file CPU, peak {peak:.0f} MB")
    _text.forget_spellings()  # the staged loop starts as a worker does, with no spelling seen
    spent = staged(files, MAX_FILE_BYTES)
    for stage, seconds in spent.items():
        print(f"{stage:26s} {seconds / len(files) * 1000:6.3f} ms/file")
    print(f"{'all stages':26s} {sum(spent.values()) / len(files) * 1000:6.3f} ms/file ({len(files)} files)")


if __name__ == "__main__":
    main()
