"""The offline study of ranking evidence (bench/_rag_evidence.py) reads sections and counts answers as the
search and bench/rag.py do: a study that miscounted would report gains or losses that are not there."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._rag_evidence import Asked, Cand, _global, _within_file, evidence, score  # noqa: E402

PINS = """| Signal | GPIO | Notes |
| --- | --- | --- |
| Fan control | GPIO18 | high = on |
| LED data | GPIO15 | APA102 |"""

PROSE = """The fan runs at full speed when the control line is high.
Fit the fan so the airflow reaches the SoC."""


def test_a_which_pin_question_finds_the_row_naming_a_pin_and_prose_has_none() -> None:
    weights = {"fan": 2.0, "control": 1.0, "pin": 0.5}
    row = evidence("which pin is the fan control", PINS, "Fan > Header usage", weights, [], False)
    prose = evidence("which pin is the fan control", PROSE, "Fan > Fitting", weights, [], False)
    assert row["any_answer"] == 1.0 and prose["any_answer"] == 0.0
    assert row["answer_line"] == row["best_line"] == 3.0 / 3.5  # fan and control on the row, no "pin"
    assert prose["best_line"] == 3.0 / 3.5 and prose["answer_line"] == 0.0
    assert prose["coverage"] == row["coverage"]
    assert evidence("fan control", PINS, "Fan > Header usage", {"fan": 1.0, "control": 1.0}, [], True)[
        "model_file"] == 1.0


def _cand(log_score: float, source: str, fact_at: int, length: int = 100, demoted: bool = False,
          **features: float) -> Cand:
    return Cand(log_score, demoted, source, {"f": 0.0, **features}, length, length * 3, fact_at, fact_at, 5)


def test_answers_are_counted_as_the_bench_counts_them() -> None:
    # the answer in the third result: a hit within three; within 2,048 characters only when the results before
    # it leave room
    short = Asked(0, [_cand(0.0, "a.md", -1), _cand(-0.1, "a.md", -1), _cand(-0.2, "b.md", 10)])
    assert score(short, {}, _global) == (False, True, True)
    long = Asked(0, [_cand(0.0, "a.md", -1, 1500), _cand(-0.1, "a.md", -1, 1500), _cand(-0.2, "b.md", 10)])
    assert score(long, {}, _global) == (False, True, False)
    # evidence reorders; a candidate the scope rule put back stays behind whatever its evidence
    moved = Asked(0, [_cand(0.0, "a.md", -1), _cand(-0.5, "b.md", 0, f=1.0), _cand(-0.1, "c.md", 0, True, f=9.0)])
    assert score(moved, {"f": 1.0}, _global)[0] and not score(moved, {}, _global)[0]


def test_within_a_file_only_the_order_of_its_sections_changes() -> None:
    a = Asked(0, [_cand(0.0, "a.md", -1), _cand(-0.3, "b.md", -1), _cand(-0.6, "b.md", 0, f=1.0)])
    got = _within_file(a, {"f": 1.0})
    assert got[0] == 0.0 and max(got[1:]) == -0.3 and got[2] > got[1]  # b.md keeps its best score
    assert score(a, {"f": 1.0}, _within_file) == (False, True, True)
