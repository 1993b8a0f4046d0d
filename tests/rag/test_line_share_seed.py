"""A line's share of the question's words is the same in every process: the words a line holds are a set,
whose order follows the interpreter's hash seed, and a float sum taken in that order could differ in its last
bit between two processes and flip a tie between two sections."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_CODE = r"""
from edge_agent.rag.lines import line_share
text = "alpha beta gamma on one line\nsomething else"
weights = {"alpha": 0.1, "beta": 0.2, "gamma": 0.3, "omega": 0.7}
print(repr(line_share(text, "notes > pins", weights, set())))
"""


def test_line_share_does_not_depend_on_the_hash_seed() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    seen = set()
    for seed in range(24):
        out = subprocess.run([sys.executable, "-c", _CODE], env={**env, "PYTHONHASHSEED": str(seed)},
                             capture_output=True, text=True, check=True)
        seen.add(out.stdout.strip())
    assert len(seen) == 1, seen
