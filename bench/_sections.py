"""BENCHMARKS.md sections: each bench module owns the text between its `<!-- section: NAME -->` markers."""

from __future__ import annotations

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
