"""`edge-agent rag index|query`: build the datasheet index and ask it questions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from edge_agent.cli._common import datasheets_from, positive_int, print_json, query_text, settings_from, state_from

if TYPE_CHECKING:
    from edge_agent.rag import HardwareRag


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rag", help="datasheet index: build it, query it")
    rsub = p.add_subparsers(dest="rag_command", metavar="ACTION", required=True)

    idx = rsub.add_parser("index", help="(re)build the persisted datasheet index; only changed files are re-read")
    idx.add_argument("--datasheets", metavar="DIR", help="datasheet directory (default: [peripherals] datasheet_dir)")
    idx.add_argument("--json", action="store_true", help="print the file list and problems as JSON")
    idx.set_defaults(handler=_index)

    q = rsub.add_parser("query", help="search the datasheets")
    q.add_argument("text", type=query_text, help="the question, e.g. 'BME280 chip id register'")
    q.add_argument("--board", action="append", default=[], metavar="B",
                   help="boost this board's documents (repeatable)")
    q.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="number of chunks (default 5; 2 in compact)")
    q.add_argument("--datasheets", metavar="DIR", help="datasheet directory (default: [peripherals] datasheet_dir)")
    q.add_argument("--context", action="store_true", help="print the agent context block instead of a result list")
    q.add_argument("--json", action="store_true", help="print results as JSON")
    q.set_defaults(handler=_query)


def _load(args: argparse.Namespace, *, progress: bool = False) -> tuple[Path, HardwareRag]:
    from edge_agent.rag import HardwareRag

    settings = settings_from(args)
    root = datasheets_from(args, settings)
    index_dir = state_from(args) / "rag"

    def bar(done: int, total: int) -> None:
        if total < 100:
            return
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\rindexing [{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return root, HardwareRag.load(root, index_dir=index_dir, compact=settings.agent.compact_context,
                                  progress=bar if progress else None)


def _index(args: argparse.Namespace) -> int:
    root, rag = _load(args, progress=True)
    files = rag.files()
    if args.json:
        print_json({"datasheet_dir": str(root), "index": str(rag.db_path), "stats": rag.stats,
                    "files": [f.__dict__ for f in files], "problems": [p.__dict__ for p in rag.problems]})
        return 0
    if not root.is_dir():  # only the bundled default gets here (see datasheets_from); say why it is empty
        print(f"the bundled datasheet directory {root} is missing from this install; the index is empty; "
              "set [peripherals] datasheet_dir or pass --datasheets DIR", file=sys.stderr)
    s = rag.stats
    print(f"{root}: {s['files']} file(s), {len(rag)} chunk(s); {s['indexed']} indexed, {s['reused']} unchanged, "
          f"{s['removed']} removed; index at {rag.db_path}")
    for p in rag.problems:
        print(f"warning: {p.source}: {p.message}", file=sys.stderr)
    return 0


def _query(args: argparse.Namespace) -> int:
    from edge_agent.cli.pins import lookup

    if args.context:
        got = lookup(args, "hardware_context", {"query": args.text, "boards": args.board or None})
        sys.stdout.write(got["context"])
        return 0
    hits = lookup(args, "datasheet_search", {"query": args.text, "boards": args.board or None, "limit": args.limit},
                  note_missing=True)
    if args.json:
        print_json(hits)
        return 0
    if hits.get("read_as"):
        print(f"searched for: {hits['read_as']}", file=sys.stderr)
    if not hits["results"]:
        print("no matching datasheet text", file=sys.stderr)
        return 0
    for c in hits["results"]:
        print(f"--- {c['source']} ({c['board'] or 'generic'}) score {c['score']:.2f}: {c['heading']}")
        print(c["text"].rstrip())
        print()
    return 0
