"""Choose the reranking's multipliers (edge_agent/rag/weights.toml) together, and say what a choice is worth.

The rules' factors act together, so one set by hand at a time may sit far from what they do best together.
This searches them jointly, by coordinate descent over a grid of values for each (start at the shipped
record, move one factor at a time to the grid value that gains most, until nothing moves), on the seen
question sets only: the tuning set and the former held-out sets. The sealed held-out set of the round is never
ranked here.

A fit judged on the questions it was fitted on says nothing of new questions, so the estimate reported is
cross-validated by leaving one question set out at a time: the factors are fitted on the other sets and
scored on the one left out (each set was written apart from the others, as a new set would be). Only a change
that gains there is worth shipping. The score of a ranking is hit@1 + (hit@3 + within 2,048 characters) / 2
over the questions, with each question's own boards configured, as bench/rag.py counts them.

    .venv/bin/python -m bench._rag_fit            # the cross-validated estimate, then the fit on every set
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING

from bench.rag import _roots, _score

if TYPE_CHECKING:
    from bench._rag_questions import Question
    from edge_agent.rag import HardwareRag
    from edge_agent.rag.query import Weights

#: The seen sets (module, name): questions ranking changes were tried on or looked at.
SEEN = (("bench._rag_questions", "QUESTIONS"), ("bench._rag_heldout", "HELD_OUT"),
        ("bench._rag_heldout2", "HELD_OUT_2"), ("bench._rag_heldout3", "HELD_OUT_3"),
        ("bench._rag_heldout4", "HELD_OUT_4"), ("bench._rag_heldout5", "HELD_OUT_5"),
        ("bench._rag_heldout6", "HELD_OUT_6"), ("bench._rag_heldout7", "HELD_OUT_7"),
        ("bench._rag_heldout8", "HELD_OUT_8"), ("bench._rag_heldout9", "HELD_OUT_9"),
        ("bench._rag_heldout10", "HELD_OUT_10"), ("bench._rag_heldout11", "HELD_OUT_11"),
        ("bench._rag_heldout12", "HELD_OUT_12"), ("bench._rag_heldout13", "HELD_OUT_13"),
        ("bench._rag_heldout14", "HELD_OUT_14"), ("bench._rag_heldout15", "HELD_OUT_15"),
        ("bench._rag_heldout16", "HELD_OUT_16"), ("bench._rag_heldout17", "HELD_OUT_17"),
        ("bench._rag_outside", "OUTSIDE_A"), ("bench._rag_outside", "OUTSIDE_B"), ("bench._rag_outside", "OUTSIDE_C"),
        ("bench._rag_outside", "OUTSIDE_D"))

#: Values tried for each factor.
GRID: dict[str, tuple[float, ...]] = {
    "exact_bonus": (0.0, 0.3, 0.45, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0),
    "without_the_pin": (0.25, 0.35, 0.5, 0.65, 0.8, 1.0),
    "pin_row": (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0),
    "same_file": (0.5, 0.65, 0.8, 0.9, 1.0),
    "alias_list": (0.2, 0.3, 0.45, 0.6, 0.8, 1.0),
    "overview": (0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0),
    "function_section": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0),
    "code_table": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0),
    "unasked": (0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
    "together": (1.0, 2.0, 3.0, 4.0),
    "one_line": (0.0, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0),
}

Result = tuple[bool, bool, bool]


class Fitter:
    """Ranks the seen questions under a record of factors, remembering each record's results."""

    def __init__(self) -> None:
        from edge_agent.rag import HardwareRag

        self.rags: dict[str, HardwareRag] = {name: HardwareRag.load(root) for name, root in _roots().items()}
        self.questions: list[Question] = []
        self.group: list[int] = []
        for i, (module, name) in enumerate(SEEN):
            for q in getattr(importlib.import_module(module), name):
                self.questions.append(q)
                self.group.append(i)
        self._memo: dict[Weights, list[Result]] = {}

    def results(self, weights: Weights) -> list[Result]:
        got = self._memo.get(weights)
        if got is None:
            for rag in self.rags.values():
                rag.weights = weights
            got = self._memo[weights] = [
                _score([(c.source, c.text) for c in self.rags[q.corpus].search(q.text, q.boards)], q)
                for q in self.questions]
        return got

    def worth(self, weights: Weights, which: Sequence[int]) -> float:
        res = self.results(weights)
        return sum(res[i][0] + 0.5 * (res[i][1] + res[i][2]) for i in which)

    def fit(self, start: Weights, which: Sequence[int], sweeps: int = 3) -> Weights:
        """Coordinate descent from `start` on the questions `which`: a factor moves only to a value that gains."""
        current, best = start, self.worth(start, which)
        for _ in range(sweeps):
            moved = False
            for f in fields(current):
                for value in GRID[f.name]:
                    trial = replace(current, **{f.name: value})
                    if trial == current:
                        continue
                    got = self.worth(trial, which)
                    if got > best + 1e-9:
                        current, best, moved = trial, got, True
            if not moved:
                break
        return current

    def counts(self, weights: Weights, which: Sequence[int]) -> tuple[int, int, int]:
        res = self.results(weights)
        return (sum(res[i][0] for i in which), sum(res[i][1] for i in which), sum(res[i][2] for i in which))


def _changed(base: Weights, other: Weights) -> str:
    diff = [f"{f.name} {getattr(base, f.name):g} -> {getattr(other, f.name):g}" for f in fields(base)
            if getattr(base, f.name) != getattr(other, f.name)]
    return ", ".join(diff) or "no change"


def main(argv: list[str] | None = None) -> None:
    from edge_agent.rag.query import WEIGHTS

    started = time.process_time()
    fitter = Fitter()
    everyone = range(len(fitter.questions))
    total_base = [0, 0, 0]
    total_cv = [0, 0, 0]
    print("Left out | n | shipped hit@1 / hit@3 / within | fitted on the others | factors fitted on the others")
    for i, (_, name) in enumerate(SEEN):
        train = [j for j in everyone if fitter.group[j] != i]
        test = [j for j in everyone if fitter.group[j] == i]
        fitted = fitter.fit(WEIGHTS, train)
        base, cv = fitter.counts(WEIGHTS, test), fitter.counts(fitted, test)
        total_base = [a + b for a, b in zip(total_base, base, strict=True)]
        total_cv = [a + b for a, b in zip(total_cv, cv, strict=True)]
        print(f"{name} | {len(test)} | {base} | {cv} | {_changed(WEIGHTS, fitted)}", flush=True)
    n = len(fitter.questions)
    print(f"Cross-validated, {n} questions: shipped {tuple(total_base)}, fitted on the other sets {tuple(total_cv)}"
          f" (hit@1 {total_base[0] / n:.3f} -> {total_cv[0] / n:.3f})")
    final = fitter.fit(WEIGHTS, list(everyone))
    print(f"Fitted on every seen set (not an estimate): {fitter.counts(final, everyone)}; {_changed(WEIGHTS, final)}")
    print(f"CPU {time.process_time() - started:.0f} s, {len(fitter._memo)} records ranked")


if __name__ == "__main__":
    main(sys.argv[1:])
