"""Run every benchmark module in bench/ (or the ones named on the command line)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Bench names select modules; options (`--no-write`) go to each module's own command line."""
    options = [a for a in argv if a.startswith("-")]
    names = [a for a in argv if not a.startswith("-")] or sorted(
        m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_")
    )
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        if hasattr(module, "main"):
            print(f"## bench.{name}", flush=True)
            sys.argv = [f"bench.{name}", *options]
            module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
