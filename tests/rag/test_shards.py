"""Joining shards: each term's compact rows from shards numbered from 1 give, byte for byte, the row of
the whole postings list; files split into contiguous shards of about equal size; a worker's postings,
added as raw tokens, counted and joined from parts, are the rows one builder writes."""

from __future__ import annotations

import logging
import random
import re
import sqlite3
from array import array
from pathlib import Path
from typing import Any

import pytest

from edge_agent.rag import parse, shards
from edge_agent.rag.codec import encode
from edge_agent.rag.files import DocFile, scan
from edge_agent.rag.parse import parse_counts, parse_raw
from edge_agent.rag.postings import SnapshotBuilder
from edge_agent.rag.rowjoin import join_runs, joined_rows, packed_part, packed_rows
from edge_agent.rag.shards import SHARD_DDL, ShardPostings, _joined, split
from edge_agent.rag.text import _CAN_SIGNAL, raw_numbers, term_numbers

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus" / "datasheets"


@pytest.mark.parametrize("seed", range(6))
def test_joined_shard_rows_are_the_rows_of_the_whole_list(seed: int) -> None:
    """Row by row in pure Python, and with numpy a range of terms at a time."""
    rng = random.Random(seed)
    n_chunks = 60_000
    cuts = sorted(rng.sample(range(1, n_chunks), rng.randint(1, 4)))
    bounds = [0, *cuts, n_chunks]  # shard k holds chunk ids bounds[k] + 1 .. bounds[k + 1]
    whole: dict[str, tuple[list[int], list[float]]] = {}
    for t in range(60):
        share = rng.choice([1.0, 0.3, 0.01, 0.0004])  # dense terms, and sparse ones with gaps past a byte
        ids = [c for c in range(1, n_chunks + 1) if rng.random() < share]
        if t % 7 == 0:  # a posting right after a boundary, one at the boundary, the first and last chunks
            ids = sorted({*ids, 1, n_chunks, *(b for b in cuts), *(b + 1 for b in cuts)})
        if ids:
            whole[f"t{t:02d}"] = (ids, [rng.choice([1.0, 3.0, 4.0, 0.5, 300.0]) for _ in ids])
    parts = []
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        rows = []
        for term in sorted(whole):
            ids, tfs = whole[term]
            mine = [(c - lo, f) for c, f in zip(ids, tfs, strict=True) if lo < c <= hi]
            if mine:
                rows.append((term, *encode([c for c, _ in mine], [f for _, f in mine])))
        parts.append((lo, rows))
    df: dict[str, int] = {}
    got = list(_joined(parts, df))
    assert [row[0] for row in got] == sorted(whole)
    for term, n, ids_blob, tfs_blob in got:
        assert (n, ids_blob, tfs_blob) == encode(*whole[term]), term
        assert df[term] == len(whole[term][0])
    np = pytest.importorskip("numpy")  # and with numpy, the runs read in batches of a few rows, a range at a time

    def batches(rows: list[tuple[str, int, bytes, bytes]]) -> Any:
        at = 0
        while at < len(rows):
            upto = at + rng.randint(1, 9)
            yield packed_rows(np, rows[at:upto])
            at = upto

    np_df: dict[str, int] = {}
    assert list(joined_rows(join_runs(np, [(off, batches(rows)) for off, rows in parts]), np_df)) == got
    assert np_df == df


def test_files_split_into_contiguous_shards_of_about_equal_bytes() -> None:
    files = [DocFile(f"/x/{i}", f"f{i:03d}.md", None, "text", 1000 + (i % 7) * 900, 0) for i in range(301)]
    runs = split(files, 3)
    assert [f for run in runs for f in run] == files  # every file once, in order
    sizes = [sum(f.size for f in run) for run in runs]
    assert max(sizes) - min(sizes) <= 2 * max(f.size for f in files)
    assert split(files[:1], 4) == [files[:1]]  # never an empty shard


@pytest.mark.parametrize(("batch_tokens", "part_postings", "keys_16_bit"), [
    (7, 10**9, 1 << 16), (300, 7, 1 << 16), (300, 5000, 1 << 16), (10**9, 10**9, 1 << 16), (300, 5000, 0),
    (10**9, 10**9, 0)])
def test_a_workers_postings_joined_from_its_parts_are_the_rows_one_builder_writes(
        tmp_path: Path, batch_tokens: int, part_postings: int, keys_16_bit: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A building worker adds each file's raw tokens, counts them a batch at a time, groups and encodes the
    counted postings a part at a time and joins the parts; the rows are those of the builder a build in one
    process uses (fed each chunk's counts), and the chunks' weighted lengths are those of the counts, over the
    bundled datasheets and the shared corpus, in one batch or in many, in one part or in many, with the terms
    sorted by 16-bit or by 32-bit keys."""
    np = pytest.importorskip("numpy")
    monkeypatch.setattr(shards, "KEYS_16_BIT", keys_16_bit)
    roots = [REPO / "datasheets", *([SHARED] if SHARED.is_dir() else [])]
    files = [f for root in roots for f in scan(root)[0]]
    rows = []
    sections = []
    for use_parts in (True, False):
        conn = sqlite3.connect(tmp_path / f"{use_parts}.sqlite", isolation_level=None)
        conn.executescript(SHARD_DDL)
        conn.execute("BEGIN")
        parts = ShardPostings(np, conn, term_numbers().names, batch_tokens, part_postings)
        builder = SnapshotBuilder(conn)
        first = 1
        for f in files:
            if use_parts:
                pf, raw = parse_raw(np, f, 1 << 20)
                assert raw is not None
                parts.add(first, raw)
            else:
                pf, counted = parse_counts(f, 1 << 20)
                for k, tf in enumerate(counted):
                    builder.add(first + k, tf)
            sections.append(pf.sections)
            first += len(pf.sections)
        parts.write() if use_parts else builder.write(conn)
        rows.append(_shard_rows(np, conn) if use_parts else
                    conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term").fetchall())
        conn.close()
    assert rows[0] == rows[1]
    assert sections[:len(files)] == sections[len(files):]
    assert len(rows[0]) > 1000


def _shard_rows(np: Any, conn: sqlite3.Connection) -> list[tuple[str, int, bytes, bytes]]:
    """The rows a worker left packed in its shard (``postings_joined``), one per term."""
    rows = [joined_rows([(terms, ns, id_at, tf_at, ids.tobytes(), tfs.tobytes())])
            for terms, ns, id_at, tf_at, ids, tfs in (packed_part(np, *row) for row in conn.execute(
                "SELECT * FROM postings_joined ORDER BY rowid"))]
    got = [row for batch in rows for row in batch]
    assert [row[0] for row in got] == sorted(row[0] for row in got)  # in term order, each term once
    return got


_CAN_BEFORE = re.compile(r"(?<=[a-z0-9] )can(?= +(?:(?:tx|rx|txd|rxd|td|rd|h|l|transceivers?|controllers?|frames?"
                         r"|filters?|ids?|pins?|signals?|lines?|messages?)\b|(?:transmit|receive) *(?:$|[?.!,;\n])))")


@pytest.mark.parametrize("seed", range(3))
def test_the_can_signal_pattern_opening_with_the_word_replaces_what_the_lookbehind_first_one_did(seed: int) -> None:
    rng = random.Random(seed)
    words = ["can", "cant", "scan", "tx", "rx", "h", "l", "transmit", "receive", "frames", "pin", "the", "a1",
             "x", "9", "ids", "canbus", "message"]
    seps = [" ", "  ", "\n", ". ", ", ", "?", "", "-", " can "]
    for _ in range(2000):
        text = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(1, 9)))
        assert _CAN_SIGNAL.sub("canbus", text) == _CAN_BEFORE.sub("canbus", text), text


def test_a_part_of_more_terms_than_16_bit_keys_hold_is_grouped_right(tmp_path: Path) -> None:
    """Past 65,536 distinct terms in a part, the ranks are sorted as 32-bit keys: every term's row is still the
    one a build in one process writes."""
    np = pytest.importorskip("numpy")
    numbers = term_numbers()
    vocab = [numbers[f"zzsynthetic{k:05d}"] for k in range(shards.KEYS_16_BIT + 4000)]
    rng = random.Random(9)
    chunks = [sorted(set(rng.sample(vocab, 120) + vocab[c * 100:(c + 1) * 100]))
              for c in range(len(vocab) // 100 + 1)]
    rows = []
    for use_parts in (True, False):
        conn = sqlite3.connect(tmp_path / f"{use_parts}.sqlite", isolation_level=None)
        conn.executescript(SHARD_DDL)
        conn.execute("BEGIN")
        if use_parts:  # a term g stands 1 + g % 3 times in its chunk's words
            parts = ShardPostings(np, conn, numbers.names, 10**9)
            raw = raw_numbers()
            rids = [[raw.of_term(numbers.names[g])] * (1 + g % 3) for c in chunks for g in c]
            words = [sum(1 + g % 3 for g in c) for c in chunks]
            parts.add(1, (array("i", [r for same in rids for r in same]),
                          array("i", [n for w in words for n in (w, 0)])))
            parts.write()
            rows.append(_shard_rows(np, conn))
        else:
            builder = SnapshotBuilder(conn)
            for k, c in enumerate(chunks):
                builder.add(1 + k, {numbers.names[g]: float(1 + g % 3) for g in c})
            builder.write(conn)
            rows.append(conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term").fetchall())
        conn.close()
    assert len(rows[0]) > shards.KEYS_16_BIT
    assert rows[0] == rows[1]


def test_a_worker_runs_this_code_even_started_from_a_directory_holding_another_edge_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A worker runs `python -m`, which puts the directory it starts in first on its import path: started from a
    checkout or an older release's directory, it would import that edge_agent (here one that cannot be imported,
    so the worker stops and the files are parsed here instead). Workers start with -P: they import this one."""
    other = tmp_path / "elsewhere" / "edge_agent"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("raise ImportError('another edge_agent')\n")
    files = scan(REPO / "datasheets")[0][:3]
    monkeypatch.chdir(other.parent)
    monkeypatch.setattr(parse, "_workers", lambda n_files: 2)
    with caplog.at_level(logging.INFO, logger="edge_agent.rag"):
        got = list(parse.parse_many(files, [None] * len(files), 1 << 20, parallel_from=1))
    assert [pf.sections for pf in got] == [parse.parse_file(f, 1 << 20, pack=False).sections for f in files]
    assert "worker stopped" not in caplog.text
    assert all(not pf.logged for pf in got)  # parsed by the workers, not here
