"""BENCHMARKS.md sections: each bench module owns the text between its `<!-- section: NAME -->` markers."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def replace_section(name: str, text: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace what lies between the `name` section markers of `path` with `text`; the rest is kept."""
    start, end = f"<!-- section: {name} -->", f"<!-- end: {name} -->"
    doc = path.read_text(encoding="utf-8")
    a, b = doc.find(start), doc.find(end)
    if a < 0 or b < a:
        raise ValueError(f"{path} has no '{start}' ... '{end}' markers; add them where the {name} figures go")
    a += len(start)
    path.write_text(doc[:a] + "\n" + text.rstrip("\n") + "\n" + doc[b:], encoding="utf-8")


def publish(name: str, produce: Callable[[], str], argv: Sequence[str] | None = None,
            path: Path | None = None) -> None:
    """Run a bench (`produce` returns its Markdown), print it with the run time, and store it as section
    `name` of BENCHMARKS.md unless `--no-write` is given."""
    argv = sys.argv[1:] if argv is None else argv
    t0 = time.perf_counter()
    text = produce()
    print(text)
    print(f"(bench.{name} took {time.perf_counter() - t0:.0f} s)")
    if "--no-write" not in argv:
        replace_section(name, text, path or BENCHMARKS_MD)
