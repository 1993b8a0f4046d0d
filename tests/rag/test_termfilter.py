"""The filter of the terms the stored postings hold: it never hides a term with a row, spares the table the
lookups of words without one, and is not used for postings it was not written for."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from edge_agent.rag import HardwareRag, termfilter


def _words(rng: random.Random, n: int) -> list[str]:
    return list(dict.fromkeys("".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789_.", k=rng.randint(1, 12)))
                              for _ in range(n)))


@pytest.mark.parametrize("seed", range(3))
def test_every_term_passes_and_few_absent_ones_do(seed: int) -> None:
    rng = random.Random(seed)
    words = _words(rng, 3000)
    held, absent = words[:2000], words[2000:]
    blob = termfilter.build(held, b"ids")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('snapshot_ids', ?)", (b"ids",))
    conn.execute("INSERT INTO meta VALUES ('term_filter', ?)", (blob,))
    got = termfilter.read(conn)
    assert got is not None
    assert all(t in got for t in held)
    assert sum(t in got for t in absent) <= len(absent) // 100


def test_numpy_writes_the_filter_pure_python_writes() -> None:
    np = pytest.importorskip("numpy")
    words = _words(random.Random(7), 5000)
    assert termfilter.build(words, b"\x01\x00\x00\x00", np) == termfilter.build(words, b"\x01\x00\x00\x00")


def _index(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(60):
        (root / f"part{i}.md").write_text(f"# Part {i}\n## Misc\nregister map of part {i}, watchdog {i % 7}\n")


def _table_lookups(rag: HardwareRag) -> list[str]:
    looked: list[str] = []
    rag._conn.set_trace_callback(lambda sql: looked.append(sql) if "FROM postings WHERE term" in sql else None)
    return looked


def test_a_word_without_a_row_is_not_looked_up_in_the_table(tmp_path: Path) -> None:
    _index(tmp_path / "ds")
    rag = HardwareRag.load(tmp_path / "ds", index_dir=tmp_path / "state")
    looked = _table_lookups(rag)
    assert rag.search("watchdog zyxwvut qqqqqq") != []
    assert looked and not [sql for sql in looked if "zyxwvut" in sql or "qqqqqq" in sql]
    assert any("watchdog" in sql for sql in looked)  # a word with a row is read from the table


def test_a_filter_written_for_other_postings_is_not_used(tmp_path: Path) -> None:
    _index(tmp_path / "ds")
    state = tmp_path / "state"
    HardwareRag.load(tmp_path / "ds", index_dir=state).close()
    db = next(state.glob("rag-*.sqlite"))
    conn = sqlite3.connect(db)
    ids = conn.execute("SELECT value FROM meta WHERE key = 'snapshot_ids'").fetchone()[0]
    with conn:  # postings written again by a version that writes no filter: they cover other chunk ids
        conn.execute("UPDATE meta SET value = ? WHERE key = 'snapshot_ids'", (ids + b"\x00\x01\x00\x00",))
        stale = termfilter.read(conn)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'snapshot_ids'", (ids,))
        assert stale is None and termfilter.read(conn) is not None
        conn.execute("DELETE FROM meta WHERE key = 'term_filter'")
    conn.close()
    rag = HardwareRag.load(tmp_path / "ds", index_dir=state)  # an index without a filter reads the table
    looked = _table_lookups(rag)
    assert [c.source for c in rag.search("watchdog 3", limit=1)] == ["part3.md"]
    assert any("watchdog" in sql for sql in looked)


def test_words_of_files_indexed_since_are_found_and_a_rewrite_writes_the_filter_again(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    _index(root)
    rag = HardwareRag.load(root, index_dir=tmp_path / "state")
    before = rag._conn.execute("SELECT value FROM meta WHERE key = 'term_filter'").fetchone()[0]
    (root / "part3.md").write_text("# Part 3\n## Errata\nbrownout quirkword erratum\n")
    rag.refresh()  # one file: its words are in the delta, not in the rows the filter describes
    assert [c.source for c in rag.search("quirkword", limit=1)] == ["part3.md"]
    for i in range(0, 60, 2):
        (root / f"part{i}.md").write_text(f"# Part {i}\n## Misc\nregister map of part {i}, newword{i}\n")
    rag.refresh()  # half the chunks changed: the rows and their filter are written again
    after = rag._conn.execute("SELECT value FROM meta WHERE key = 'term_filter'").fetchone()[0]
    assert after != before and termfilter.read(rag._conn) is not None
    assert [c.source for c in rag.search("newword4", limit=1)] == ["part4.md"]
    assert [c.source for c in rag.search("quirkword", limit=1)] == ["part3.md"]
