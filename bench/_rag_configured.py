"""Do ranking changes hold when a board is configured that the question is not about? An offline check.

The seen question sets configure each question's own boards, and most questions have none. An agent runs with
its own board configured all the time, and many of its questions are about something else (a level shifter, a
sensor, a HAT): a rule that reads a configured board as the question's subject can win on the sets as written
and lose there. This ranks every seen question twice: with its own boards, and with a given board configured
wherever a question has none (its own boards otherwise), and prints hit@1 / hit@3 / within 2,048 per set, as
bench/rag.py counts them. Only the seen sets are read; a sealed set never is.

    .venv/bin/python -m bench._rag_configured                  # a Nucleo-F401RE, an ESP32 DevKitC, a Pi 4
    .venv/bin/python -m bench._rag_configured nucleo-l476rg    # or the boards given
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from bench._rag_fit import SEEN
from bench.rag import _roots, _score

DEFAULT_BOARDS = ("nucleo-f401re", "esp32-devkitc", "rpi-4b")

Counts = tuple[int, int, int]


def counts(configured: str | None) -> list[tuple[str, int, Counts]]:
    """(set name, questions, (hit@1, hit@3, within 2,048)) per seen set, each question ranked with its own boards,
    or with `configured` when it has none."""
    from edge_agent.rag import HardwareRag

    rags = {name: HardwareRag.load(root) for name, root in _roots().items()}
    out = []
    for module, name in SEEN:
        questions = getattr(importlib.import_module(module), name)
        got = [_score([(c.source, c.text) for c in rags[q.corpus].search(
            q.text, q.boards or ((configured,) if configured else ()))], q) for q in questions]
        out.append((name, len(got), (sum(g[0] for g in got), sum(g[1] for g in got), sum(g[2] for g in got))))
    return out


def main(argv: Sequence[str]) -> None:
    boards = list(argv) or list(DEFAULT_BOARDS)
    runs = {"own boards": counts(None), **{f"{b} where none": counts(b) for b in boards}}
    names = list(runs)
    print("| set | n | " + " | ".join(names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    first = runs[names[0]]
    for i, (name, n, _) in enumerate(first):
        cells = " | ".join("{} / {} / {}".format(*runs[k][i][2]) for k in names)
        print(f"| {name} | {n} | {cells} |")
    totals = [tuple(sum(r[2][j] for r in runs[k]) for j in range(3)) for k in names]
    print(f"| all | {sum(r[1] for r in first)} | " + " | ".join("{} / {} / {}".format(*t) for t in totals) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
