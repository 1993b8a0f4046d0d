"""`edge-agent memory ...` and `edge-agent cache ...`: the local memory cache from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edge_agent.cli._common import positive_int, print_json, query_text, run_op
from edge_agent.errors import EdgeAgentError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", help="the device's local memory cache (store, recall, engage, reflect, export)")
    p.add_argument("--workspace", metavar="NAME", help="workspace whose memory to use (default: [workspace] name)")
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    s = msub.add_parser("store", help="store (or update) an entry")
    s.add_argument("--key", required=True, help="key to store under; storing it again supersedes the old version")
    s.add_argument("--content", required=True, help="text to remember ('-' reads stdin)")
    s.add_argument("--category", default="core", help="core, daily, conversation or a custom label")
    s.add_argument("--namespace", help="namespace (default: [memory] default_namespace)")
    s.add_argument("--session", help="session id to record with the entry")
    s.add_argument("--importance", type=float, default=0.5, help="0 to 1 (default 0.5)")
    s.add_argument("--timestamp", help="RFC 3339 time of the entry (default now)")
    s.add_argument("--title", default="", help="short title shown in recall and engage results")
    s.add_argument("--json", action="store_true", help="print the stored entry as JSON")
    s.set_defaults(handler=_store)

    g = msub.add_parser("get", help="show the live entry stored under KEY")
    g.add_argument("key", help="the entry's key")
    g.add_argument("--namespace", help="namespace (default: [memory] default_namespace)")
    g.set_defaults(handler=_get)

    ls = msub.add_parser("list", help="list entries, newest first")
    ls.add_argument("--category", help="only entries of this category")
    ls.add_argument("--namespace", help="only entries of this namespace")
    ls.add_argument("--session", help="only entries of this session")
    ls.add_argument("--limit", type=positive_int, default=50, help="at most this many entries (default 50)")
    ls.add_argument("--all", action="store_true", help="include superseded versions")
    ls.add_argument("--json", action="store_true", help="print the entries as JSON")
    ls.set_defaults(handler=_list)

    r = msub.add_parser("recall", help="entries relevant to QUERY with their final decayed score")
    r.add_argument("query", type=query_text, help="what to look for, in plain words")
    r.add_argument("--limit", type=positive_int, default=5, help="at most this many results (default 5)")
    r.add_argument("--namespace", action="append", help="restrict to a namespace (repeatable)")
    r.add_argument("--category", action="append", help="restrict to a category (repeatable)")
    r.add_argument("--min-score", type=float, help="drop results under this score (default [memory] "
                   "min_relevance_score)")
    r.add_argument("--other-workspace", action="append", metavar="NAME",
                   help="also search this workspace ('*' = all; needs [workspace] cross_workspace_search)")
    r.add_argument("--json", action="store_true", help="print the results as JSON")
    r.set_defaults(handler=_recall)

    e = msub.add_parser("engage", help="the prompt-ready memory context for QUERY")
    e.add_argument("query", type=query_text, help="the question the context is for")
    e.add_argument("--limit", type=positive_int, default=5, help="at most this many entries (default 5)")
    e.add_argument("--namespace", action="append", help="restrict to a namespace (repeatable)")
    e.add_argument("--category", action="append", help="restrict to a category or capture type (repeatable)")
    e.add_argument("--json", action="store_true", help="print {context, results, source_refs}")
    e.set_defaults(handler=_engage)

    rf = msub.add_parser("reflect", help="store captures from a memory_reflect JSON object")
    rf.add_argument("--json", dest="json_file", required=True, metavar="FILE",
                    help="file with {session_id, response, captures, source_krefs}; '-' reads stdin")
    rf.set_defaults(handler=_reflect)

    f = msub.add_parser("forget", help="delete every version of KEY")
    f.add_argument("key", help="the entry's key")
    f.add_argument("--namespace", help="namespace (default: [memory] default_namespace)")
    f.set_defaults(handler=_forget)

    msub.add_parser("stats", help="counts by category and namespace, evictions, file sizes").set_defaults(
        handler=_stats)
    msub.add_parser("health", help="integrity check and schema state").set_defaults(handler=_health)

    h = msub.add_parser("hygiene", help="archive, purge and apply retention now")
    h.add_argument("--force", action="store_true", help="run even when [memory] hygiene_enabled = false")
    h.set_defaults(handler=_hygiene)

    msub.add_parser("snapshot", help="write a JSON Lines backup into the memory folder").set_defaults(
        handler=_snapshot)

    pv = msub.add_parser("provenance", help="what an entry was derived from, and what was derived from it")
    pv.add_argument("entry_id", help="the entry's id (as in mem://<id>)")
    pv.set_defaults(handler=_provenance)

    au = msub.add_parser("audit", help="the audit trail of writes and deletes, newest first ([memory] audit_enabled)")
    au.add_argument("--limit", type=positive_int, default=50, help="at most this many rows (default 50)")
    au.set_defaults(handler=_audit)

    x = msub.add_parser("export", help="entries as JSON Lines on stdout (oldest first)")
    x.add_argument("--namespace", help="only entries of this namespace")
    x.add_argument("--session", help="only entries of this session")
    x.add_argument("--category", help="only entries of this category")
    x.add_argument("--since", help="RFC 3339, inclusive")
    x.add_argument("--until", help="RFC 3339, inclusive")
    x.add_argument("--live-only", action="store_true", help="leave out superseded versions")
    x.set_defaults(handler=_export)

    i = msub.add_parser("import", help="restore entries from an export file ('-' reads stdin)")
    i.add_argument("file", help="a `memory export` file, or '-' for stdin")
    i.set_defaults(handler=_import)

    c = sub.add_parser("cache", help="the LLM response cache ([memory] response_cache_*)")
    c.add_argument("--workspace", metavar="NAME", help="workspace whose cache to use (default: [workspace] name)")
    csub = c.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    csub.add_parser("stats", help="entries, hits, hit rate, tokens saved").set_defaults(handler=_cache_stats)
    cg = csub.add_parser("get", help="look up a cached response")
    _cache_key_args(cg)
    cg.set_defaults(handler=_cache_get)
    cp = csub.add_parser("put", help="cache a response")
    _cache_key_args(cp)
    cp.add_argument("--response", required=True, help="the response text to cache")
    cp.add_argument("--tokens", type=int, help="tokens generating it cost (default: estimated)")
    cp.set_defaults(handler=_cache_put)
    csub.add_parser("clear", help="drop every cached response").set_defaults(handler=_cache_clear)


def _cache_key_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="model name (part of the cache key)")
    p.add_argument("--system", default="", help="system prompt")
    p.add_argument("--prompt", required=True, help="user prompt")


def _op(args: argparse.Namespace, name: str, **params: Any) -> Any:
    return run_op(args, name, {"workspace": getattr(args, "workspace", None), **params})


def _read_text(arg: str) -> str:
    if arg == "-":
        return sys.stdin.read()
    try:
        return Path(arg).read_text(encoding="utf-8")
    except OSError as exc:
        raise _CliInputError(f"cannot read {arg}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise _CliInputError(f"{arg} is not UTF-8 text") from None


class _CliInputError(EdgeAgentError, ValueError):
    """A file given on the command line could not be read or parsed."""


def _store(args: argparse.Namespace) -> int:
    content = sys.stdin.read() if args.content == "-" else args.content
    entry = _op(args, "memory_store", key=args.key, content=content, memory_type=args.category,
                space_path=args.namespace, session_id=args.session, importance=args.importance,
                timestamp=args.timestamp, title=args.title or None)
    if args.json:
        print_json(entry)
    else:
        print(f"stored {entry['key']} [{entry['category']}] in {entry['namespace']} ({entry['source_ref']})")
    return 0


def _get(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_get", key=args.key, space_path=args.namespace))
    return 0


def _preview(text: str, width: int = 72) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def _list(args: argparse.Namespace) -> int:
    entries = _op(args, "memory_list", memory_type=args.category, space_path=args.namespace,
                  session_id=args.session, limit=args.limit, include_superseded=args.all)["entries"]
    if args.json:
        print_json(entries)
        return 0
    for e in entries:
        mark = " (superseded)" if e.get("superseded_by") else (" (archived)" if e.get("archived") else "")
        print(f"{e['timestamp'][:19]}  {e['category']:<12} {e['namespace']:<10} {e['key']}: "
              f"{_preview(e['content'])}{mark}")
    if not entries:
        print("(no entries)", file=sys.stderr)
    return 0


def _recall(args: argparse.Namespace) -> int:
    result = _op(args, "memory_recall", query=args.query, limit=args.limit, namespaces=args.namespace,
                 memory_types=args.category, min_score=args.min_score, other_workspaces=args.other_workspace)
    entries, own = result["results"], result.get("workspace")
    if args.json:  # the memory_recall tool's result: {query, results, workspace}
        print_json(result)
        return 0
    for e in entries:
        ws = f"{e['workspace']}:" if e.get("workspace") != own else ""
        print(f"{e.get('score') or 0:.3f}  [{e['category']}] {ws}{e['key']}: {_preview(e['content'])}")
    if not entries:
        print("(nothing relevant)", file=sys.stderr)
    return 0


def _engage(args: argparse.Namespace) -> int:
    result = _op(args, "memory_engage", query=args.query, limit=args.limit, memory_types=args.category,
                 namespaces=args.namespace)
    if args.json:
        print_json(result)
    else:
        print(result["context"] or "(no relevant memory)")
    return 0


def _reflect(args: argparse.Namespace) -> int:
    text = _read_text(args.json_file)
    try:
        data = json.loads(text)
    except ValueError as exc:
        where = "stdin" if args.json_file == "-" else args.json_file
        raise _CliInputError(f"{where} is not JSON ({exc}); pass the memory_reflect object "
                             '{"session_id", "response", "captures", "source_krefs"}') from None
    if not isinstance(data, dict):
        raise _CliInputError("the reflect input must be a JSON object with session_id, response, captures")
    refs = data.get("source_krefs", data.get("source_refs")) or []
    print_json(_op(args, "memory_reflect", session_id=str(data.get("session_id") or ""),
                   response=str(data.get("response") or ""), captures=data.get("captures") or [],
                   source_krefs=refs, space_path=data.get("space_path")))
    return 0


def _forget(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_forget", key=args.key, space_path=args.namespace))
    return 0


def _stats(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_stats"))
    return 0


def _health(args: argparse.Namespace) -> int:
    report = _op(args, "memory_health")
    print_json(report)
    return 0 if report["ok"] else 1


def _hygiene(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_hygiene", force=args.force))
    return 0


def _snapshot(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_snapshot"))
    return 0


def _provenance(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_provenance", entry_id=args.entry_id))
    return 0


def _audit(args: argparse.Namespace) -> int:
    print_json(_op(args, "memory_audit", limit=args.limit)["rows"])
    return 0


def _export(args: argparse.Namespace) -> int:
    result = _op(args, "memory_export_file", space_path=args.namespace, session_id=args.session,
                 memory_type=args.category, since=args.since, until=args.until, include_superseded=not args.live_only)
    sys.stdout.write(result["text"])
    sys.stdout.flush()
    print(f"exported {result['count']} entries", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    text = _read_text(args.file)
    print_json(_op(args, "memory_import", text=text))
    return 0


def _cache_stats(args: argparse.Namespace) -> int:
    print_json(_op(args, "cache_stats"))
    return 0


def _cache_get(args: argparse.Namespace) -> int:
    response = _op(args, "cache_get", model=args.model, system=args.system, prompt=args.prompt)["response"]
    if response is None:
        print("(miss)", file=sys.stderr)
        return 1
    print(response)
    return 0


def _cache_put(args: argparse.Namespace) -> int:
    print_json(_op(args, "cache_put", model=args.model, system=args.system, prompt=args.prompt,
                   response=args.response, tokens=args.tokens))
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    print_json(_op(args, "cache_clear"))
    return 0
