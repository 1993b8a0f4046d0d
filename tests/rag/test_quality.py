"""Answer quality on the shared corpus, against the faithful Revka reimplementation (bench/_revka.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.rag import HardwareRag

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._rag_questions import QUESTIONS, Question  # noqa: E402
from bench._revka import RevkaRag, parse_pin_aliases  # noqa: E402

SHARED_QUESTIONS = tuple(q for q in QUESTIONS if q.corpus == "shared")  # the comparisons run on the shared corpus


def _rank(results: list[tuple[str, str]], q: Question, budget: int | None = None) -> int | None:
    for i, (source, text) in enumerate(results):
        if source in q.source.split("|") and q.fact.lower() in text[:budget].lower():
            return i
    return None


@pytest.fixture(scope="module")
def both(request: pytest.FixtureRequest) -> tuple[HardwareRag, RevkaRag]:
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "datasheets"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus/datasheets is not beside this checkout")
    return HardwareRag.load(corpus), RevkaRag.load(corpus)


def test_question_set_has_forty_plus_questions_with_and_without_board_scope() -> None:
    assert len(QUESTIONS) >= 40
    assert sum(1 for q in QUESTIONS if q.boards) >= 15
    assert sum(1 for q in QUESTIONS if not q.boards) >= 15


def test_every_expected_fact_is_really_in_its_source_file(shared_corpus: Path) -> None:
    roots = {"shared": shared_corpus, "bundled": bundled_datasheets_dir()}
    for q in QUESTIONS:
        texts = [(roots[q.corpus] / s).read_text().lower() for s in q.source.split("|")]
        assert any(q.fact.lower() in t for t in texts), q


def test_top3_hit_rate_is_at_least_95_percent(both: tuple[HardwareRag, RevkaRag]) -> None:
    ours, _ = both
    hits = [_rank([(c.source, c.text) for c in ours.search(q.text, q.boards)], q) for q in SHARED_QUESTIONS]
    top3 = sum(1 for r in hits if r is not None and r < 3) / len(SHARED_QUESTIONS)
    assert top3 >= 0.95, [q.text for q, r in zip(SHARED_QUESTIONS, hits, strict=True) if r is None or r >= 3]


def test_top3_beats_the_reference_by_15_points_when_the_answer_must_fit_one_context_slot(
    both: tuple[HardwareRag, RevkaRag],
) -> None:
    """Within 2,048 characters (a 512-token slot) of a result; the reference returns whole files."""
    ours, ref = both
    ours3 = ref3 = 0
    for q in SHARED_QUESTIONS:
        r = _rank([(c.source, c.text) for c in ours.search(q.text, q.boards)], q, 2048)
        ours3 += r is not None and r < 3
        r = _rank([(c.source, c.content) for c in ref.retrieve(q.text, q.boards, 5)], q, 2048)
        ref3 += r is not None and r < 3
    assert (ours3 - ref3) / len(SHARED_QUESTIONS) >= 0.15


def test_top1_is_not_worse_than_the_reference_on_whole_results(both: tuple[HardwareRag, RevkaRag]) -> None:
    ours, ref = both
    ours1 = sum(_rank([(c.source, c.text) for c in ours.search(q.text, q.boards)], q) == 0 for q in SHARED_QUESTIONS)
    ref1 = sum(_rank([(c.source, c.content) for c in ref.retrieve(q.text, q.boards, 5)], q) == 0
               for q in SHARED_QUESTIONS)
    assert ours1 > ref1


# --- the baseline itself behaves like Revka's retrieval: substring counts, +2 for a named board ------------


def test_reference_baseline_counts_substrings_and_adds_two_for_a_named_board(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("the ledger of parts")
    (tmp_path / "nucleo.md").write_text("one LED here")
    ref = RevkaRag.load(tmp_path)
    got = {c.source: c.score for c in ref.retrieve("led", ["nucleo"], 5)}
    assert got == {"a.md": 1.0, "nucleo.md": 3.0}  # "led" matches inside "ledger"


def test_reference_baseline_alias_parser_keeps_only_integers_and_markup() -> None:
    text = "## Pin Aliases\n- red_led: 13\n| Green LED | PA5 |\n`led`: 2\nblue = 4\n"
    assert parse_pin_aliases(text) == {"-_red_led": 13, "`led`": 2, "blue": 4}
