"""Building the datasheet index: worker processes parse like this one, an interrupted build is rebuilt."""

from __future__ import annotations

import marshal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from edge_agent.rag import HardwareRag, parse, postings, shards

QUERIES = ("LED PA5", "register map part 3", "chip id 0xD0", "I2C address of the sensor", "GPIO17 header pin",
           "reset timer erratum", "UART TX pin", "pull-up resistor value", "SPI clock 8 MHz")
SHARED = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "datasheets"


def _corpus(root: Path) -> Path:
    """A dozen datasheets, with the files reading finds wrong (not UTF-8, empty) among them."""
    root.mkdir(parents=True)
    for i in range(12):
        (root / f"vendor{i % 3}").mkdir(exist_ok=True)
        (root / f"vendor{i % 3}" / f"part{i}.md").write_text(
            f"# Part {i}\n## Register map\nregister map of part {i}: CTRL_MEAS at 0x{0xF0 + i:02X}\n"
            f"## Pins\n| Pin | Function |\n| --- | --- |\n| PA{i} | UART TX |\n| PB{i} | SPI SCK 8 MHz |\n"
            f"## Pin Aliases\nled_{i}: PA{i}\n## Errata\nreset timer erratum {i}, pull-up of {i}0 kohm\n")
    (root / "nucleo-f401re.md").write_text("# Nucleo\n## LEDs\nLD2 green user LED on PA5.\n")
    (root / "latin1.md").write_bytes("# Capteur\nTempérature 25 °C, chip id 0xD0\n".encode("latin-1"))
    (root / "empty.md").write_text("")
    return root


def _results(rag: HardwareRag) -> list[Any]:
    return [[(c.source, c.heading, round(c.score, 9)) for c in rag.search(q, limit=8)] for q in QUERIES]


def _state(rag: HardwareRag) -> tuple[Any, ...]:
    return (_results(rag), rag.files(), sorted(map(repr, rag.problems)), rag.alias_entries(), len(rag))


def _rows(rag: HardwareRag) -> tuple[Any, ...]:
    """Every stored row that describes the index (chunks, files, postings and their counts, document
    frequency adjustments, snapshot)."""
    conn = rag._conn
    return (conn.execute("SELECT id, rel, idx, board, heading, text, dl, tf FROM chunks ORDER BY id").fetchall(),
            conn.execute("SELECT rel, board, kind, size, sha256, problems, aliases, nchunks FROM files "
                         "ORDER BY rel").fetchall(),
            conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term").fetchall(),
            conn.execute("SELECT key, value FROM meta WHERE key NOT IN ('index_gen', 'df_adjust') "
                         "ORDER BY key").fetchall(),
            # (marshal writes equal dicts as different bytes when their objects are shared differently)
            sorted(marshal.loads(conn.execute("SELECT value FROM meta WHERE key = 'df_adjust'").fetchone()[0]).items()),
            conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").fetchall())


def _two_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "PARALLEL_FROM_FILES", 1)
    monkeypatch.setattr(shards, "SHARDED_FROM_FILES", 1)
    monkeypatch.setattr(parse, "_workers", lambda n: 2)


@pytest.mark.parametrize("which", ["generated", "shared", "joined without numpy"])
def test_a_cold_build_in_shards_stores_what_one_process_stores(
        tmp_path: Path, which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker indexes a contiguous run of the files into a database of its own; the joined index has
    the same rows (chunk ids, postings bytes, document frequencies) as a build in this process, the shards'
    rows joined with numpy or, without it, a row at a time."""
    if which == "joined without numpy":
        monkeypatch.setattr(postings, "_np", None)  # here only: the workers still pack their rows with numpy
        which = "generated"
    if which == "shared" and not SHARED.is_dir():
        pytest.skip("../shared/corpus/datasheets is not beside this checkout")
    root = _corpus(tmp_path / "ds") if which == "generated" else SHARED
    alone_rag = HardwareRag.load(root, index_dir=tmp_path / "alone")
    alone = _state(alone_rag)
    joined: list[int] = []
    join = shards.ShardedBuild.join_into

    def counted(self: shards.ShardedBuild, conn: Any, first: int) -> Any:
        joined.append(len(self.shards))
        return join(self, conn, first)

    _two_workers(monkeypatch)
    monkeypatch.setattr(shards.ShardedBuild, "join_into", counted)
    seen: list[tuple[int, int]] = []
    built = HardwareRag.load(root, index_dir=tmp_path / "workers", progress=lambda n, total: seen.append((n, total)))
    assert joined == [2]  # two shards were built and joined
    assert _state(built) == alone
    assert _rows(built) == _rows(alone_rag)
    # the index of chunk paths, kept while the shards' chunks were copied, holds every row: SQLite finds it whole
    assert built._conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert seen[-1] == (built.stats["files"], built.stats["files"])
    assert not [p for p in (tmp_path / "workers").iterdir() if not p.name.startswith("rag-")]  # shards removed
    # and the index they wrote keeps working incrementally like one built in this process
    if which == "generated":
        (root / "vendor1" / "part4.md").write_text("# Part 4\n## Errata\nwatchdog erratum, revision D\n")
        (root / "vendor2" / "part5.md").unlink()
        assert (built.refresh()["indexed"], built.stats["removed"]) == (1, 1)
        assert _results(built) == _results(HardwareRag.load(root))


def test_a_failed_join_of_the_postings_loses_nothing_and_leaves_no_shard_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The postings are joined in a thread beside the chunk copy: its error stops the build as the copy's would,
    the transaction rolls back (no half index), and the shard databases and the joined one are removed."""
    root = _corpus(tmp_path / "ds")
    _two_workers(monkeypatch)

    def broken(parts: Any, df: Any) -> Any:
        yield from ()
        raise OSError("disk full while joining the postings")

    monkeypatch.setattr(shards, "_joined", broken)  # (without numpy)
    monkeypatch.setattr(shards, "joined_rows", broken)
    with pytest.raises(OSError, match="disk full"):
        HardwareRag.load(root, index_dir=tmp_path / "workers")
    assert not [p for p in (tmp_path / "workers").iterdir() if not p.name.startswith("rag-")]
    monkeypatch.undo()
    rebuilt = HardwareRag.load(root, index_dir=tmp_path / "workers")  # the next start builds it whole
    assert rebuilt.stats["indexed"] == rebuilt.stats["files"] > 0


def _count_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the parsed batches workers send back, recorded as the indexing process receives them."""
    batches: list[int] = []
    receive = parse._receive

    def counted(proc: Any) -> Any:
        got = receive(proc)
        batches.append(len(got or ()))
        return got

    monkeypatch.setattr(parse, "_receive", counted)
    return batches

def test_a_smaller_first_build_with_workers_streams_parsed_files_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below SHARDED_FROM_FILES the workers only parse (shards cost more CPU than they save there)."""
    root = _corpus(tmp_path / "ds")
    alone = _state(HardwareRag.load(root))
    _two_workers(monkeypatch)
    monkeypatch.setattr(shards, "SHARDED_FROM_FILES", 1000)
    batches = _count_batches(monkeypatch)
    monkeypatch.setattr(shards.ShardedBuild, "run", lambda *a: pytest.fail("no shards below the threshold"))
    assert _state(HardwareRag.load(root, index_dir=tmp_path / "index")) == alone
    assert batches and all(batches)


def test_a_building_worker_that_stops_leaves_the_build_to_this_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus(tmp_path / "ds")
    want = _state(HardwareRag.load(root))
    run = shards.ShardedBuild.run

    def one_dies(self: shards.ShardedBuild, *args: Any) -> bool:
        popen = shards.subprocess.Popen
        started: list[Any] = []

        def start(*a: Any, **kw: Any) -> Any:
            proc = popen(*a, **kw)
            started.append(proc)
            if len(started) == 2:
                proc.kill()
            return proc

        monkeypatch.setattr(shards.subprocess, "Popen", start)
        try:
            ok = run(self, *args)
        finally:
            monkeypatch.setattr(shards.subprocess, "Popen", popen)
        assert not ok
        return ok

    _two_workers(monkeypatch)
    monkeypatch.setattr(shards.ShardedBuild, "run", one_dies)
    got = HardwareRag.load(root, index_dir=tmp_path / "index")
    assert _state(got) == want
    assert not [p for p in (tmp_path / "index").iterdir() if not p.name.startswith("rag-")]


@pytest.mark.parametrize("which", ["generated", "shared"])
def test_worker_processes_reindexing_many_files_give_the_same_index_as_one_process(
        tmp_path: Path, which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files changed in an existing index are parsed in workers and streamed back to this process."""
    if which == "shared" and not SHARED.is_dir():
        pytest.skip("../shared/corpus/datasheets is not beside this checkout")
    root = _corpus(tmp_path / "ds") if which == "generated" else SHARED
    alone = _state(HardwareRag.load(root, index_dir=tmp_path / "alone"))
    rag = HardwareRag.load(root, index_dir=tmp_path / "workers")
    rag._conn.execute("UPDATE files SET size = size + 1, sha256 = ''")  # every file looks changed
    _two_workers(monkeypatch)
    batches = _count_batches(monkeypatch)
    assert rag.refresh()["indexed"] == rag.stats["files"]
    assert batches and all(batches)  # every file came back from a worker
    assert _state(rag) == alone
    assert _state(HardwareRag.load(root, index_dir=tmp_path / "workers")) == alone


def test_a_worker_that_stops_early_leaves_its_files_to_the_indexing_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus(tmp_path / "ds")
    want = _state(HardwareRag.load(root))
    rag = HardwareRag.load(root, index_dir=tmp_path / "index")
    rag._conn.execute("UPDATE files SET size = size + 1, sha256 = ''")
    start = parse._start

    def one_dies(*args: Any) -> Any:
        workers = start(*args)
        workers[1].kill()
        return workers

    _two_workers(monkeypatch)
    monkeypatch.setattr(parse, "_BATCH", 2)
    monkeypatch.setattr(parse, "_start", one_dies)
    rag.refresh()
    assert _state(rag) == want


def test_an_interrupted_build_is_never_trusted(tmp_path: Path) -> None:
    """A build killed half way (power cut, OOM killer) leaves nothing a later load takes for an index."""
    root = _corpus(tmp_path / "ds")
    index = tmp_path / "index"
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from edge_agent.rag import HardwareRag

        def die(n, total):  # called after the last file's rows, before the postings and the commit
            if n == total:
                os.kill(os.getpid(), signal.SIGKILL)

        HardwareRag.load(Path({str(root)!r}), index_dir=Path({str(index)!r}), progress=die)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == -9, run.stderr
    assert list(index.glob("*.sqlite"))  # the database was being written when the process died
    again = HardwareRag.load(root, index_dir=index)
    assert again.stats["indexed"] == again.stats["files"]  # everything read again
    assert _state(again) == _state(HardwareRag.load(root))


def test_pruned_scoring_returns_what_exhaustive_scoring_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy scorer that skips most long postings returns the same chunks with bit-identical scores,
    also over a changed index (chunks indexed later, removed chunks masked) and with boosted boards."""
    np = pytest.importorskip("numpy")
    import random

    from edge_agent.rag import postings, prune

    monkeypatch.setattr(postings, "NUMPY_FROM_CHUNKS", 0)
    monkeypatch.setattr(prune, "SEED_CHUNKS", 4)  # lists both shorter and longer than this
    monkeypatch.setattr(prune, "MAX_CANDIDATE_SHARE", 1.0)  # prune whenever it is safe, not only when it pays
    monkeypatch.setattr(prune, "FEW_CHUNKS", 8)  # chunks scored both ways: a weight for each, or holders only
    rng = random.Random(3)
    words = [f"w{i}" for i in range(300)]
    weights = [1.0 / (r + 1) for r in range(300)]  # a few words in most chunks, most words rare
    root = tmp_path / "ds"
    root.mkdir()
    for i in range(60):
        sections = "".join(f"## {' '.join(rng.choices(words, weights, k=2))}\n"
                           f"{' '.join(rng.choices(words, weights, k=rng.randint(5, 80)))}\n" for _ in range(6))
        (root / f"part-{i:02d}.md").write_text(f"# Part {i}\n{sections}")
    rag = HardwareRag.load(root, index_dir=tmp_path / "index")
    queries = [rng.sample(words[:120], rng.randint(1, 5)) for _ in range(150)]
    pruned = 0
    taken: Counter[str] = Counter()  # the branches the comparisons went through
    find, intersection, union = prune._find, prune._intersection, prune._union

    def counted_find(cids: Any, needles: Any, np: Any) -> Any:
        taken["table" if len(needles) >= prune.DENSE_LOOKUP * len(cids) else "binary search"] += 1
        return find(cids, needles, np)

    def counted_intersection(p: Any, lists: Any, limit: int) -> Any:
        full, known = intersection(p, lists, limit)
        longer = sum(len(ids) > prune.SEED_CHUNKS for ids, _ in lists)
        taken["a list passed over" if len(known) < longer else "every list intersected" if longer > 1 else ""] += 1
        return full, known

    def counted_union(*args: Any) -> Any:
        taken["candidates beyond the seeds"] += 1
        return union(*args)

    monkeypatch.setattr(prune, "_find", counted_find)
    monkeypatch.setattr(prune, "_intersection", counted_intersection)
    monkeypatch.setattr(prune, "_union", counted_union)

    def compare() -> None:
        nonlocal pruned
        p = rag._postings
        for n, q in enumerate(queries):
            terms = [t for t in q if p.df[t] > 0]
            boards = {f"part-{n % 60:02d}": 1.5} if n % 3 else {}
            for limit in (1, 10, 25):
                want = sorted(p._scores_np(terms, len(q), boards, limit))
                got = prune.top_pruned(p, terms, len(q), boards, limit)
                if got is not None:
                    pruned += 1
                    assert sorted(got) == want, (q, boards, limit)
                    # the boosted board's best chunks, read from the seeds, as scoring that board alone gives them
                    own = prune.top_pruned_own(p, terms, len(q), boards, limit, 3)
                    assert own is not None
                    alone = sorted(p._scores_of(terms, len(q), boards), key=lambda c: -c[1])
                    assert sorted(own[1], key=lambda c: -c[1])[:3] == alone[:3], (q, boards, limit)

    compare()
    (root / "part-07.md").unlink()
    (root / "part-08.md").write_text("# Part 8\n## w1 w2\nw1 w3 w5 w7 w1 w1\n")
    rag.refresh()
    assert len(rag._postings.tomb) and rag._postings._delta  # removed and later chunks are both in play
    compare()
    assert pruned > 300  # the pruned path answered most of them
    assert min(taken[k] for k in ("table", "binary search", "a list passed over", "every list intersected",
                                  "candidates beyond the seeds")) > 10, taken
    assert np is not None


def test_a_built_index_commits_refreshes_through_the_write_ahead_log(tmp_path: Path) -> None:
    import sqlite3

    root = _corpus(tmp_path / "ds")
    rag = HardwareRag.load(root, index_dir=tmp_path / "index")
    (db,) = (tmp_path / "index").glob("*.sqlite")
    with sqlite3.connect(db) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    (root / "vendor0" / "part3.md").write_text("# Part 3\n## Errata\nwatchdog erratum, revision D\n")
    assert rag.refresh()["indexed"] == 1
    rag.close()
    again = HardwareRag.load(root, index_dir=tmp_path / "index")  # what the refresh committed is there
    assert again.stats["indexed"] == 0
    assert again.search("watchdog erratum")[0].source == "vendor0/part3.md"


def test_a_large_build_opening_or_closing_hands_its_freed_heap_back_and_a_small_refresh_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.rag import store, text

    store.give_back_memory()  # callable here (glibc), and harmless where the C library lacks it
    calls: list[int] = []
    monkeypatch.setattr(store, "TRIM_FROM_FILES", 10)
    monkeypatch.setattr(store, "give_back_memory", lambda: calls.append(1))
    root = _corpus(tmp_path / "ds")
    rag = HardwareRag.load(root, index_dir=tmp_path / "index")
    assert calls == [1]
    assert not text._memo  # the build's spellings are dropped too; queries bring their own
    (root / "vendor0" / "part3.md").write_text("# Part 3\n## Errata\nwatchdog erratum, revision D\n")
    assert rag.refresh()["indexed"] == 1
    assert calls == [1]
    assert rag.search("watchdog erratum")[0].source == "vendor0/part3.md"
    rag.close()  # what the closed index held goes back too
    assert calls == [1, 1] and not rag._postings.n and rag._meta is None
    again = HardwareRag.load(root, index_dir=tmp_path / "index")  # opening read every file's stat row
    assert again.stats["indexed"] == 0 and calls == [1, 1, 1]
    assert again.search("watchdog erratum")[0].source == "vendor0/part3.md"


def test_a_parsed_file_carries_for_each_chunk_what_counting_the_chunk_alone_gives(tmp_path: Path) -> None:
    """The flat term arrays a parsed file travels in (from a worker process too), counted with each long
    section's heading tokenised once, give every chunk of every bundled, shared-corpus and generated
    datasheet the terms, weighted frequencies and length that counting the chunk alone gives (what a
    refresh and a removal compute)."""
    from edge_agent.rag.files import scan

    roots = [_corpus(tmp_path / "ds"), Path(__file__).resolve().parents[2] / "datasheets"]
    roots += [SHARED] if SHARED.is_dir() else []
    checked = 0
    for root in roots:
        for f in scan(root)[0]:
            got = parse.parse_file(f, 1 << 20)
            stem = parse.stem_words(f.rel)
            alone = [parse.chunk_tf(stem, heading, body) for heading, body, _ in got.sections]
            assert list(got.chunk_tfs()) == [tf for tf, _ in alone], f.rel
            assert [dl for _, _, dl in got.sections] == [dl for _, dl in alone], f.rel
            # parsed in this process the counts stay unpacked; what a refresh stores of them is the same bytes
            kept = parse.parse_file(f, 1 << 20, pack=False)
            assert (kept.counted is not None) == bool(got.sections) and not kept.tids, f.rel
            assert list(kept.chunk_tfs()) == list(got.chunk_tfs()), f.rel
            assert (kept.terms, kept.tids, kept.tfs, kept.sizes) == (got.terms, got.tids, got.tfs, got.sizes), f.rel
            checked += len(alone)
    assert checked > 100


def test_a_large_build_parses_on_every_core_however_busy_and_a_small_one_only_on_idle_cores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parse.os, "getloadavg", lambda: (6.0, 6.0, 6.0))  # a shared machine, every core busy
    assert parse._workers(parse.ALL_CORES_FROM_FILES) == 2
    assert parse._workers(parse.ALL_CORES_FROM_FILES - 1) == 0
    monkeypatch.setattr(parse.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert parse._workers(parse.PARALLEL_FROM_FILES) == 2
    monkeypatch.setattr(parse.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert parse._workers(parse.ALL_CORES_FROM_FILES) < 2  # one core: parsed in the indexing process
