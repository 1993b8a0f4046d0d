"""HardwareRag: loading, chunking, ranking, context block, persistence."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from edge_agent.errors import DatasheetError, UnknownBoardError
from edge_agent.rag import COMPACT_CHARS, HardwareRag
from edge_agent.rag.chunker import chunk_markdown
from edge_agent.rag.files import board_tag
from edge_agent.rag.text import query_terms, tokens


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- tokens ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spellings", [
    ["PA5", "PA_5", "pa5", "PA05"],
    ["GPIO17", "BCM17", "GPIO 17", "gpio_17"],
    ["0x76", "76h", "0X76", "0x076"],
])
def test_pin_and_hex_spellings_normalise_to_one_token(spellings: list[str]) -> None:
    assert len({tuple(tokens(s)) for s in spellings}) == 1


def test_numbers_with_units_match_with_or_without_a_space() -> None:
    assert tokens("400kHz") == tokens("400 kHz") == ["400", "khz"]
    assert tokens("3v3") == tokens("3.3 V")


def test_light_stemming_and_compound_parts() -> None:
    assert tokens("buttons pressed") == tokens("button press")
    assert set(tokens("ctrl_meas")) >= {"ctrl_meas", "ctrl"}
    assert "i2c" in tokens("I2C1_SCL")


def test_query_terms_drop_stop_words_and_repeats() -> None:
    assert query_terms("what is the LED on the LED pin") == ["led", "pin"]


# --- files and chunks -----------------------------------------------------------------------------------


def test_board_tag_is_the_lowercased_stem_and_generic_files_have_none() -> None:
    assert board_tag("sub/NUCLEO-F401RE.md") == "nucleo-f401re"
    assert board_tag("generic.md") is None
    assert board_tag("generic_i2c.txt") is None
    assert board_tag("generic-levels.md") is None
    assert board_tag("_generic/deep/sensor.md") is None


def test_chunks_keep_the_heading_path() -> None:
    doc = "# Board\nintro\n## LEDs\nLD2 on PA5\n### Notes\nactive high\n## Buttons\nB1 on PC13\n"
    sections = chunk_markdown(doc)
    assert [s.heading for s in sections] == ["Board", "Board > LEDs", "Board > LEDs > Notes", "Board > Buttons"]
    assert sections[1].text == "LD2 on PA5"


def test_long_sections_split_on_paragraphs() -> None:
    paras = [f"paragraph {i} " + "word " * 60 for i in range(10)]
    sections = chunk_markdown("# Big\n\n" + "\n\n".join(paras), max_chars=800)
    assert len(sections) > 1
    assert all(len(s.text) <= 800 for s in sections)
    for s in sections:  # every paragraph whole in exactly one chunk
        assert all(s.text.count(f"paragraph {i} ") in (0, 1) for i in range(10))
    assert sum(s.text.count("paragraph ") for s in sections) == 10


def test_tables_are_never_cut_mid_row_and_repeat_their_header() -> None:
    rows = "\n".join(f"| 0x{i:02X} | REG_{i} | some description of register {i} |" for i in range(80))
    doc = f"# Part\n## Registers\n| Address | Name | Notes |\n| --- | --- | --- |\n{rows}\n"
    sections = chunk_markdown(doc, max_chars=600)
    assert len(sections) > 3
    seen = []
    for s in sections:
        lines = s.text.split("\n")
        assert lines[0] == "| Address | Name | Notes |" and lines[1] == "| --- | --- | --- |"
        for line in lines[2:]:
            assert line.startswith("| 0x") and line.endswith("|")
            seen.append(line)
    assert len(seen) == 80


def test_headings_inside_code_fences_do_not_start_sections() -> None:
    doc = "# Part\n```\n# not a heading\n```\ntext\n"
    assert [s.heading for s in chunk_markdown(doc)] == ["Part"]


def test_extensions_match_in_any_letter_case(tmp_path: Path) -> None:
    _write(tmp_path, "A.MD", "# A\nalpha register\n")
    _write(tmp_path, "b.Txt", "# B\nbeta register\n")
    _write(tmp_path, "c.rst", "gamma register\n")
    rag = HardwareRag.load(tmp_path)
    assert [f.source for f in rag.files()] == ["A.MD", "b.Txt"]


def test_missing_or_empty_directory_gives_empty_results_not_an_error(tmp_path: Path) -> None:
    assert HardwareRag.load(tmp_path / "nope").search("anything") == []
    assert HardwareRag.load(tmp_path).context("anything", ["nucleo-f401re"]) == ""
    assert HardwareRag.load(None).search("x") == []


# --- ranking --------------------------------------------------------------------------------------------


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    _write(root, "nucleo-f401re.md", "# Nucleo\n## LEDs\nLD2 green user LED on PA5.\n## Clock\nHSE bypass 8 MHz.\n")
    _write(root, "bme280.md", "# BME280\n## Chip id\nRegister 0xD0 reads 0x60 on a BME280 chip id check.\n"
                              "## Address\nSDO low gives 0x76.\n")
    _write(root, "generic-levels.md", "# Levels\n## LED resistor\nUse 330 ohm for an LED.\n")
    for i in range(8):
        _write(root, f"part{i}.md", f"# Part {i}\n## Misc\nregister map of part {i}\n")
    return root


def test_default_limit_is_five_and_compact_caps_at_two(small: Path) -> None:
    assert len(HardwareRag.load(small).search("register part")) == 5
    assert len(HardwareRag.load(small, compact=True).search("register part")) == 2
    assert len(HardwareRag.load(small).search("register part", limit=3)) == 3
    assert HardwareRag.load(small).search("register", limit=0) == []


def test_compact_mode_shortens_long_chunks(tmp_path: Path) -> None:
    _write(tmp_path, "long.md", "# Long\n" + "\n".join(f"line {i} about the sensor register" for i in range(100)))
    full = HardwareRag.load(tmp_path).search("sensor register")[0].text
    short = HardwareRag.load(tmp_path, compact=True).search("sensor register")[0].text
    assert len(full) > COMPACT_CHARS >= len(short) - 2 and short.endswith("…")


def test_hex_spelling_in_the_query_finds_the_register(small: Path) -> None:
    top = HardwareRag.load(small).search("what reads D0h")[0]
    assert (top.source, top.heading) == ("bme280.md", "BME280 > Chip id")


def test_board_boost_prefers_the_named_board_in_a_close_race(small: Path) -> None:
    rag = HardwareRag.load(small)
    assert rag.search("LED", ["nucleo-f401re"])[0].source == "nucleo-f401re.md"
    assert rag.search("LED resistor ohm", ["nucleo-f401re"])[0].source == "generic-levels.md"


def test_board_boost_never_hides_a_clearly_better_answer_from_another_file(small: Path) -> None:
    top = HardwareRag.load(small).search("BME280 chip id register", ["nucleo-f401re"])[0]
    assert top.source == "bme280.md"


def test_generic_files_answer_without_any_board(small: Path) -> None:
    chunks = HardwareRag.load(small).search("LED resistor")
    assert chunks[0].source == "generic-levels.md" and chunks[0].board is None


def test_equal_scores_are_ordered_by_source_path_then_position(tmp_path: Path) -> None:
    for name in ("b.md", "a.md", "c.md"):
        _write(tmp_path, name, "# X\nsame words here\n")
    got = [c.source for c in HardwareRag.load(tmp_path).search("same words")]
    assert got == ["a.md", "b.md", "c.md"]
    assert len({c.score for c in HardwareRag.load(tmp_path).search("same words")}) == 1


def test_unknown_board_is_an_error_listing_known_boards(small: Path) -> None:
    with pytest.raises(UnknownBoardError) as err:
        HardwareRag.load(small).search("LED", ["nucleo-f999"])
    assert "nucleo-f401re" in err.value.known and err.value.board == "nucleo-f999"


def test_a_board_known_only_from_a_datasheet_is_accepted(small: Path) -> None:
    assert HardwareRag.load(small).search("register", ["part3"])[0].source == "part3.md"


# --- context block --------------------------------------------------------------------------------------


def test_context_has_the_reference_shape(tmp_path: Path) -> None:
    _write(tmp_path, "nucleo-f401re.md", "# Nucleo\n## LEDs\nThe red LED alias is LD2.\n## Pin Aliases\nred_led: PA5\n")
    _write(tmp_path, "generic.md", "# Generic\nLED resistors are 330 ohm.\n")
    ctx = HardwareRag.load(tmp_path).context("which pin is the red LED", ["nucleo-f401re"])
    head, docs = ctx.split("[Hardware documentation]\n")
    assert head.startswith("[Pin aliases for query]\nnucleo-f401re: red_led = pin PA5")
    assert "--- nucleo-f401re.md (nucleo-f401re) ---\n# Nucleo > LEDs\n" in docs
    assert "--- generic.md (generic) ---" in docs
    assert ctx.endswith("\n\n\n")


def test_the_pin_block_is_written_from_the_pin_matches_whatever_the_board_tag_holds(tmp_path: Path) -> None:
    # a datasheet's board tag is its file name: spaces and "+" are kept, so a reader of the rendered
    # `board: alias = pin NAME` line cannot split it back reliably; the matches carry the fields as they are
    _write(tmp_path, "feather m4.md", "# Feather M4\n## Pin Aliases\nstatus_led: PA23\n")
    _write(tmp_path, "esp32+cam.md", "# ESP32 camera board\n## Pin Aliases\nflash_led: GPIO4\n")
    rag = HardwareRag.load(tmp_path)
    text, matches = rag.context_and_pins("where are the status led and the flash led", ["feather m4", "esp32+cam"])
    assert [(m.board, m.alias, m.pin) for m in matches] == [("feather m4", "status_led", "PA23"),
                                                            ("esp32+cam", "flash_led", "GPIO4")]
    head = text.split("[Hardware documentation]", 1)[0].splitlines()
    # a datasheet-only pin has no headers or functions to add: its alias is not repeated as one
    assert head[1:3] == [m.line() for m in matches] == ["feather m4: status_led = pin PA23",
                                                         "esp32+cam: flash_led = pin GPIO4"]
    assert rag.pin_context("where is the flash led", ["esp32+cam"]) == matches[1].line()
    assert text == rag.context("where are the status led and the flash led", ["feather m4", "esp32+cam"])


def test_context_serves_generic_documents_when_no_board_is_configured(small: Path) -> None:
    ctx = HardwareRag.load(small).context("LED resistor", [])
    assert ctx.startswith("[Hardware documentation]\n--- generic-levels.md (generic) ---")


def test_alias_context_needs_every_word_of_a_compound_alias(tmp_path: Path) -> None:
    _write(tmp_path, "nucleo-f401re.md", "# N\n## Pin Aliases\nred_led: PA5\nuser_button: PC13\n")
    rag = HardwareRag.load(tmp_path)
    assert "red_led" not in rag.pin_context("is the LED on", ["nucleo-f401re"])
    assert "user_button" in rag.pin_context("user button pin?", ["nucleo-f401re"])


def test_read_returns_a_file_or_one_section(small: Path) -> None:
    rag = HardwareRag.load(small)
    assert "SDO low gives 0x76." in rag.read("bme280.md", "Address")
    assert "0xD0" not in rag.read("bme280.md", "address")
    with pytest.raises(DatasheetError):
        rag.read("bme280.md", "Nope")
    with pytest.raises(DatasheetError):
        rag.read("missing.md")


# --- persistence ----------------------------------------------------------------------------------------


def test_persisted_index_is_reused_and_only_changed_files_are_reindexed(small: Path, state: Path) -> None:
    first = HardwareRag.load(small, index_dir=state / "rag")
    assert first.stats["indexed"] == 11
    again = HardwareRag.load(small, index_dir=state / "rag")
    assert again.stats == {"files": 11, "reused": 11, "indexed": 0, "removed": 0}
    _write(small, "bme280.md", (small / "bme280.md").read_text() + "\n## Errata\nA new humidity erratum.\n")
    (small / "part7.md").unlink()
    changed = HardwareRag.load(small, index_dir=state / "rag")
    assert changed.stats == {"files": 10, "reused": 9, "indexed": 1, "removed": 1}
    assert changed.search("humidity erratum")[0].heading == "BME280 > Errata"
    assert all(c.source != "part7.md" for c in changed.search("part 7 register"))


def test_touching_a_file_without_changing_it_does_not_rechunk(small: Path, state: Path) -> None:
    HardwareRag.load(small, index_dir=state)
    path = small / "bme280.md"
    path.write_text(path.read_text())  # new mtime, same content hash
    assert HardwareRag.load(small, index_dir=state).stats["indexed"] == 0


def test_many_changes_rewrite_the_snapshot_with_the_same_results(small: Path, state: Path) -> None:
    HardwareRag.load(small, index_dir=state)
    for i in range(8):
        _write(small, f"part{i}.md", f"# Part {i}\n## Misc\nregister map of part {i}, revision B\n")
    incremental = HardwareRag.load(small, index_dir=state).search("revision register part 3")
    cold = HardwareRag.load(small).search("revision register part 3")
    assert [(c.source, c.heading, round(c.score, 6)) for c in incremental] == [
        (c.source, c.heading, round(c.score, 6)) for c in cold]


def test_incremental_results_equal_a_cold_build(small: Path, state: Path) -> None:
    HardwareRag.load(small, index_dir=state)
    _write(small, "nucleo-f401re.md", "# Nucleo\n## LEDs\nLD2 green user LED on PA5, also D13.\n")
    inc = HardwareRag.load(small, index_dir=state)
    cold = HardwareRag.load(small)
    for q in ("LED PA5", "register part", "chip id"):
        assert [(c.source, round(c.score, 6)) for c in inc.search(q)] == [
            (c.source, round(c.score, 6)) for c in cold.search(q)]


def test_a_corrupt_index_file_is_rebuilt_with_a_warning(small: Path, state: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    rag = HardwareRag.load(small, index_dir=state)
    assert rag.db_path is not None
    rag.close()
    rag.db_path.write_bytes(b"this is not sqlite" * 100)
    with caplog.at_level(logging.WARNING):
        again = HardwareRag.load(small, index_dir=state)
    assert again.search("chip id")[0].source == "bme280.md"
    assert any("rebuilding" in r.getMessage() for r in caplog.records)


def test_pure_python_scoring_matches_the_numpy_path(small: Path, state: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The base install has no numpy; both accumulators must rank identically."""
    pytest.importorskip("numpy")
    from edge_agent.rag import postings

    monkeypatch.setattr(postings, "NUMPY_FROM_CHUNKS", 0)  # the small test index takes the numpy path too
    HardwareRag.load(small, index_dir=state)
    _write(small, "part2.md", "# Part 2\n## Misc\nregister map of part 2, now with an LED\n")
    (small / "part5.md").unlink()  # leaves a tombstone in the snapshot
    queries = ("register part", "LED PA5", "chip id 0xD0", "LED resistor")
    vectorised = HardwareRag.load(small, index_dir=state)
    assert vectorised._postings._np_norm is not None
    with_np = [[(c.source, c.heading, round(c.score, 6)) for c in
                vectorised.search(q, ["nucleo-f401re"])] for q in queries]
    monkeypatch.setattr(postings, "_np", None)
    without = [[(c.source, c.heading, round(c.score, 6)) for c in
                HardwareRag.load(small, index_dir=state).search(q, ["nucleo-f401re"])] for q in queries]
    assert with_np == without
    assert all(with_np)


@pytest.mark.parametrize("vectorised", [True, False])
def test_candidates_holding_a_term_agree_with_asking_each(small: Path, state: Path, vectorised: bool,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The reranking asks which candidates hold a term in one search; a removed chunk (a tombstone in the
    stored postings) and one indexed since (the delta) count as asking chunk by chunk says."""
    from edge_agent.rag import postings

    if vectorised:
        pytest.importorskip("numpy")
        monkeypatch.setattr(postings, "NUMPY_FROM_CHUNKS", 0)
    else:
        monkeypatch.setattr(postings, "_np", None)
    HardwareRag.load(small, index_dir=state)
    _write(small, "part2.md", "# Part 2\n## Misc\nregister map of part 2, now with an LED on PA5\n")
    (small / "part5.md").unlink()
    index = HardwareRag.load(small, index_dir=state)._postings
    assert (index._np_norm is not None) == vectorised
    ids = list(range(max(index.meta.ids(), default=0) + 3))
    for term in ("register", "led", "pa5", "0xd0", "absent"):
        held = index.holding(term, ids)
        assert held == {cid for cid in ids if index.has(term, cid)}
        assert held or term == "absent"


def test_concurrent_searches_from_threads_agree(small: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    rag = HardwareRag.load(small)
    expected = [c.source for c in rag.search("register part 3")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: [c.source for c in rag.search("register part 3")], range(40)))
    assert all(r == expected for r in results)


def test_pruned_pure_python_top_k_matches_the_exhaustive_numpy_scores(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The base install skips chunks that cannot reach the top; on a varied index it must still agree exactly."""
    import random

    pytest.importorskip("numpy")
    from edge_agent.rag import postings

    rng = random.Random(3)
    syllables = ("ka", "re", "mi", "to", "sa", "ne", "lo", "vi", "du", "pe", "ga", "zo", "fi", "bu")
    words = [a + b + c for a in syllables for b in syllables for c in syllables[:4]]
    rng.shuffle(words)
    weights = [1.0 / (i + 1) for i in range(len(words))]  # Zipf-like, as in real datasheets
    for i in range(120):
        sections = "\n\n".join(f"## {' '.join(rng.choices(words, weights, k=2))}\n\n"
                               + " ".join(rng.choices(words, weights, k=rng.randint(20, 120))) for _ in range(4))
        _write(tmp_path / "docs", f"board{i % 4}/part{i}.md", f"# Part {i}\n\n{sections}\n")
    monkeypatch.setattr(postings, "NUMPY_FROM_CHUNKS", 0)
    rag = HardwareRag.load(tmp_path / "docs", index_dir=tmp_path / "index")
    index = rag._postings
    assert index._np_norm is not None
    with_own = 0
    for _ in range(150):
        terms = query_terms(" ".join(rng.choices(words[5:300], weights[5:300], k=rng.randint(1, 5))))
        boosts = {f"part{rng.randrange(120)}": 1.5} if rng.random() < 0.5 else {}
        limit = rng.choice((1, 3, 5))
        vectorised = index.top(terms, boosts, limit)
        own = index.top_with_own(terms, boosts, limit, 2)
        with_own += bool(own[1])
        saved, index._np_norm = index._np_norm, None  # the same index state, scored the base install's way
        try:
            assert index.top(terms, boosts, limit) == vectorised
            assert index.top_with_own(terms, boosts, limit, 2) == own  # a boosted board's own best chunks too
        finally:
            index._np_norm = saved
    assert with_own > 10  # searches whose boosted board had chunks left out of the best


@pytest.mark.parametrize("numpy_from", [None, 0], ids=["as-configured", "numpy-path"])
def test_refresh_updates_a_loaded_index_in_place_like_a_cold_build(
        small: Path, state: Path, numpy_from: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if numpy_from is not None:
        pytest.importorskip("numpy")
        from edge_agent.rag import postings

        monkeypatch.setattr(postings, "NUMPY_FROM_CHUNKS", numpy_from)
    rag = HardwareRag.load(small, index_dir=state)
    assert rag.refresh()["indexed"] == 0  # nothing changed: nothing read again
    _write(small, "part3.md", "# Part 3\n## Errata\nreset timer erratum, revision C register map\n")
    (small / "part5.md").unlink()
    stats = rag.refresh()
    assert (stats["indexed"], stats["removed"]) == (1, 1)
    cold = HardwareRag.load(small)
    for q in ("reset timer erratum", "register part", "chip id"):
        assert [(c.source, round(c.score, 6)) for c in rag.search(q)] == [
            (c.source, round(c.score, 6)) for c in cold.search(q)]


def test_document_frequencies_after_changes_are_a_cold_builds_in_this_and_a_new_process(
        small: Path, state: Path) -> None:
    # Each term's frequency is its stored row's count adjusted for the chunks indexed and removed since the
    # rows were written; the adjustment is stored with the index, so another process reads the same counts.
    rag = HardwareRag.load(small, index_dir=state)
    _write(small, "part3.md", "# Part 3\n## Errata\nreset timer erratum, register map revision C\n")
    _write(small, "part9.md", "# Part 9\n## Misc\nregister map of part 9 with a watchdog\n")
    (small / "part5.md").unlink()
    rag.refresh()
    assert rag._postings.tomb and rag._postings._delta  # chunks removed and added since the rows were written
    reopened = HardwareRag.load(small, index_dir=state)
    cold = HardwareRag.load(small)
    words = {t for c in (*cold.search("register map part erratum watchdog timer", limit=20),
                         *cold.search("LED PA5 chip id address resistor", limit=20))
             for t in tokens(f"{c.heading} {c.text}")} | {"revision", "part5", "nonexistent"}
    for term in sorted(words):
        assert rag._postings.df[term] == reopened._postings.df[term] == cold._postings.df[term], term
    assert cold._postings.df["watchdog"] == 1 and cold._postings.df["nonexistent"] == 0


def test_a_refresh_keeps_the_stored_rows_read_so_far_until_they_are_rewritten(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "many"
    for i in range(60):
        _write(root, f"part{i}.md", f"# Part {i}\n## Misc\nregister map of part {i}, watchdog {i % 7}\n")
    rag = HardwareRag.load(root, index_dir=state)
    queries = ("register map part 7", "watchdog 3 erratum", "part 12 revision")

    def same_as_cold() -> bool:
        cold = HardwareRag.load(root)
        return all([(c.source, round(c.score, 6)) for c in rag.search(q, limit=10)] ==
                   [(c.source, round(c.score, 6)) for c in cold.search(q, limit=10)] for q in queries)

    assert same_as_cold()
    rows = rag._postings._base
    assert rows.kept_bytes > 0
    _write(root, "part7.md", "# Part 7\n## Misc\nregister map of part 7, watchdog erratum, revision B\n")
    rag.refresh()
    assert rag._postings._base is rows and same_as_cold()  # one file: the rows on disk did not change
    for i in range(0, 60, 2):
        _write(root, f"part{i}.md", f"# Part {i}\n## Misc\nregister map of part {i}, revision C\n")
    rag.refresh()  # a third of the chunks changed: the rows are written again, and read again
    assert rag._postings._base is not rows and same_as_cold()


def test_refresh_sees_what_another_process_wrote_to_the_same_index(small: Path, state: Path) -> None:
    daemon = HardwareRag.load(small, index_dir=state)
    _write(small, "part4.md", "# Part 4\n## Errata\nbrown-out detector erratum\n")
    HardwareRag.load(small, index_dir=state).close()  # `edge-agent rag index` in another process
    assert daemon.refresh()["indexed"] == 0  # the file is already indexed in the shared database
    assert daemon.search("brown-out detector erratum")[0].source == "part4.md"


def test_a_build_that_spills_postings_to_disk_ranks_like_one_that_does_not(
        small: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.rag import postings

    whole = HardwareRag.load(small)
    monkeypatch.setattr(postings, "SPILL_POSTINGS", 7)  # many runs, merged term by term
    spilled = HardwareRag.load(small, index_dir=state)
    monkeypatch.setattr(postings, "_np", None)  # the base install groups the runs without numpy
    pure = HardwareRag.load(small, index_dir=state / "pure")

    def rows(rag: HardwareRag) -> list[Any]:
        return rag._conn.execute("SELECT term, n, ids, tfs FROM postings ORDER BY term").fetchall()

    assert rows(spilled) == rows(whole) == rows(pure)  # runs joined term by term: the rows of one run
    for q in ("register part 3", "LED PA5", "chip id 0xD0"):
        want = [(c.source, c.heading, round(c.score, 6)) for c in whole.search(q)]
        assert [(c.source, c.heading, round(c.score, 6)) for c in spilled.search(q)] == want
        assert [(c.source, c.heading, round(c.score, 6)) for c in pure.search(q)] == want


def test_refresh_of_named_paths_looks_only_at_them(small: Path, state: Path) -> None:
    rag = HardwareRag.load(small, index_dir=state)
    _write(small, "part3.md", "# Part 3\n## Errata\nwatchdog erratum, revision D\n")
    _write(small, "part6.md", "# Part 6\n## Errata\nbrown-out erratum\n")  # changed, but not named
    (small / "part5.md").unlink()
    stats = rag.refresh([small / "part3.md", "part5.md"])
    assert (stats["indexed"], stats["removed"]) == (1, 1)
    assert rag.search("watchdog erratum")[0].source == "part3.md"
    assert all(c.source != "part5.md" for c in rag.search("register part 5"))
    assert rag.refresh()["indexed"] == 1  # the full walk still finds what was not named
    with pytest.raises(DatasheetError, match="not under the datasheet directory"):
        rag.refresh(["/elsewhere/part1.md"])


def test_a_loaded_index_file_keeps_a_small_page_cache_and_one_in_memory_keeps_sqlites_own(small: Path,
                                                                                          tmp_path: Path) -> None:
    from edge_agent.rag.store import SERVING_CACHE_KIB

    def cache(rag: HardwareRag) -> int:
        return int(rag._conn.execute("PRAGMA cache_size").fetchone()[0])

    built = HardwareRag.load(small, index_dir=tmp_path / "idx")
    assert cache(built) == -SERVING_CACHE_KIB
    assert built.search("chip id register", ("bme280",))[0].source == "bme280.md"
    built.close()
    reopened = HardwareRag.load(small, index_dir=tmp_path / "idx")
    assert cache(reopened) == -SERVING_CACHE_KIB and reopened.stats["reused"] == reopened.stats["files"]
    default = sqlite3.connect(":memory:").execute("PRAGMA cache_size").fetchone()[0]
    assert cache(HardwareRag.load(small)) == default  # (an index in memory lives in its page cache)


def test_the_board_tags_are_read_from_the_postings_own_set_without_a_copy_per_caller(small: Path) -> None:
    rag = HardwareRag.load(small)
    tags = rag._postings.boards()
    assert tags is rag._postings.boards() and isinstance(tags, frozenset)  # (a caller cannot change it)
    assert {"nucleo-f401re", "bme280", "part0"} <= tags and rag.boards() == sorted(tags)
