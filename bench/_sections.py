"""BENCHMARKS.md sections: each bench module owns the text between its `<!-- section: NAME -->` markers."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Collection, Sequence
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


def check_arguments(name: str, argv: Sequence[str], flags: Collection[str] = (),
                    values: Collection[str] = ()) -> bool:
    """Check a bench's command line before it runs: `--no-write` and `flags` stand alone, each of `values`
    takes the next argument. Returns False after printing the usage for `-h`/`--help` (run nothing);
    raises SystemExit naming the argument for anything else, so a typo never starts a long run that
    rewrites BENCHMARKS.md."""
    known = ["--no-write", *flags]
    usage = f"usage: python -m bench.{name} " + " ".join(
        [f"[{f}]" for f in known] + [f"[{v} VALUE]" for v in values])
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-h", "--help"):
            print(usage)
            print("Runs the bench, prints its Markdown section and stores it in BENCHMARKS.md"
                  " unless --no-write is given.")
            return False
        if arg in values:
            if i + 1 >= len(args):
                raise SystemExit(f"bench.{name}: {arg} needs a value\n{usage}")
            i += 2
            continue
        if arg not in known:
            raise SystemExit(f"bench.{name}: unknown argument {arg!r}\n{usage}")
        i += 1
    return True


def publish(name: str, produce: Callable[[], str], argv: Sequence[str] | None = None,
            path: Path | None = None, flags: Collection[str] = (), values: Collection[str] = ()) -> None:
    """Run a bench (`produce` returns its Markdown), print it with the run time, and store it as section
    `name` of BENCHMARKS.md unless `--no-write` is given. The command line is checked first (see
    `check_arguments`)."""
    argv = sys.argv[1:] if argv is None else argv
    if not check_arguments(name, argv, flags, values):
        return
    t0 = time.perf_counter()
    text = produce()
    print(text)
    print(f"(bench.{name} took {time.perf_counter() - t0:.0f} s)")
    if "--no-write" not in argv:
        replace_section(name, text, path or BENCHMARKS_MD)
