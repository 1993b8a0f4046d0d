"""The compact postings format: exact round trips with and without numpy, and an index written in the
previous format detected and rebuilt."""

from __future__ import annotations

import json
import random
import sqlite3
from array import array
from itertools import accumulate
from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag
from edge_agent.rag.codec import decode_np, decode_py, encode, encode_batch, encode_joined, encode_rows


def _terms(seed: int) -> list[tuple[list[int], list[float]]]:
    """Postings of terms of every density: in every chunk, in a few far apart (gaps past one and two
    bytes), starting at a large id; frequencies whole and not (a heading weighs 3, a fraction or 300 does
    not fit a byte)."""
    rng = random.Random(seed)
    out = []
    for n_chunks, share in ((300, 1.0), (200_000, 0.0005), (5000, 0.3), (70_000, 0.01)):
        ids = [cid for cid in range(1, n_chunks + 1) if rng.random() < share] or [n_chunks]
        tfs = [rng.choice([1.0, 2.0, 3.0, 4.0, 7.0, 255.0, 256.0, 300.0, 0.5, 1.25]) for _ in ids]
        out.append((ids, tfs))
    out.append(([70_000], [3.0]))  # a single posting far from 0
    return out


@pytest.mark.parametrize("seed", range(5))
def test_rows_decode_to_the_ids_and_frequencies_written_without_numpy(seed: int) -> None:
    for ids, tfs in _terms(seed):
        back_ids, back_tfs = decode_py(encode(ids, tfs))
        assert back_ids == ids
        assert back_tfs == list(array("f", tfs))  # the 4-byte floats the index always held


@pytest.mark.parametrize("seed", range(5))
def test_numpy_batches_write_the_same_rows_and_decode_them_the_same(seed: int) -> None:
    np = pytest.importorskip("numpy")
    terms = _terms(seed)
    starts, at = [], 0
    for ids, _ in terms:
        starts.append(at)
        at += len(ids)
    cids = np.concatenate([np.asarray(ids, dtype=np.int32) for ids, _ in terms])
    tfs = np.concatenate([np.asarray(f, dtype=np.float32) for _, f in terms])
    rows = list(encode_batch(np, cids, tfs, starts))
    assert rows == [encode(ids, f) for ids, f in terms]
    for row, (ids, f) in zip(rows, terms, strict=True):
        got_ids, got_tfs = decode_np(np, row)
        assert got_ids.dtype == np.int32 and got_ids.tolist() == ids
        assert got_tfs.tolist() == list(array("f", f))
    # raw rows in small batches (a term never split across two) give the same rows again
    raw = [(f"t{k}", array("i", ids).tobytes(), array("f", f).tobytes()) for k, (ids, f) in enumerate(terms)]
    assert [r[1:] for r in encode_rows(np, raw, batch=7)] == rows
    assert [r[1:] for r in encode_rows(None, raw)] == rows
    # joined in one go, the rows' blobs end to end and where each ends
    ns, id_ends, tf_ends, ids_blob, tfs_blob = encode_joined(np, cids, tfs, starts)
    assert array("i", ns).tolist() == [n for n, _, _ in rows]
    assert ids_blob == b"".join(ids for _, ids, _ in rows) and tfs_blob == b"".join(f for _, _, f in rows)
    assert array("q", id_ends).tolist() == list(accumulate(len(ids) for _, ids, _ in rows))
    assert array("q", tf_ends).tolist() == list(accumulate(len(f) for _, _, f in rows))


def test_a_term_in_every_chunk_costs_two_bytes_a_posting() -> None:
    n, ids, tfs = encode(range(1, 10_001), [1.0] * 5000 + [3.0] * 5000)
    assert n == 10_000 and len(ids) + len(tfs) == 20_000


def _write_previous_format(db: Path) -> None:
    """Make a current index look as the previous release left it: postings as raw 4-byte chunk ids and
    4-byte float frequencies in columns (term, cids, tfs), and the previous schema number."""
    conn = sqlite3.connect(db)
    with conn:
        rows = conn.execute("SELECT term, n, ids, tfs FROM postings").fetchall()
        conn.execute("DROP TABLE postings")
        conn.execute("CREATE TABLE postings (term TEXT PRIMARY KEY, cids BLOB NOT NULL, tfs BLOB NOT NULL) "
                     "WITHOUT ROWID")
        for term, n, ids, tfs in rows:
            cids, freq = decode_py((n, ids, tfs))
            conn.execute("INSERT INTO postings VALUES (?, ?, ?)",
                         (term, array("i", cids).tobytes(), array("f", freq).tobytes()))
        signature = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()[0])
        signature["schema"] = 4
        conn.execute("UPDATE meta SET value = ? WHERE key = 'signature'", (json.dumps(signature),))
    conn.close()


def test_an_index_in_the_previous_format_is_rebuilt_with_every_file(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    root.mkdir()
    for i in range(12):
        (root / f"part{i}.md").write_text(f"# Part {i}\n## Registers\nregister 0x{i:02X} of part {i} resets "
                                          f"the timer\n## Pins\nPA{i} drives the LED of part {i}\n")
    state = tmp_path / "state"
    first = HardwareRag.load(root, index_dir=state)
    assert first.db_path is not None
    db = first.db_path
    first.close()
    _write_previous_format(db)
    again = HardwareRag.load(root, index_dir=state)
    assert again.stats["indexed"] == 12  # detected as another format: every file indexed again
    cold = HardwareRag.load(root)  # in memory, from scratch
    for q in ("timer register part 3", "LED PA7", "register 0x0B"):
        assert [(c.source, c.heading, c.score) for c in again.search(q)] == [
            (c.source, c.heading, c.score) for c in cold.search(q)]
        assert again.search(q)
    assert len(again) == len(cold) > 0 and again.files() == cold.files()
    again.close()
    conn = sqlite3.connect(db)
    assert [r[1] for r in conn.execute("PRAGMA table_info(postings)")] == ["term", "n", "ids", "tfs"]
    conn.close()
    assert HardwareRag.load(root, index_dir=state).stats["indexed"] == 0  # and reused from then on
