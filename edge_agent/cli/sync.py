"""`edge-agent sync ...` (upstream sync to Kumiho) and `edge-agent kumiho-test-server`."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from edge_agent.cli._common import print_json, run_op, tcp_port
from edge_agent.errors import SyncError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `sync` and `kumiho-test-server` to the edge-agent command line."""
    p = sub.add_parser("sync", help="upstream sync of memory captures to Kumiho (status, now, retry-dead)")
    ssub = p.add_subparsers(dest="sync_command", metavar="ACTION", required=True)

    st = ssub.add_parser("status", help="queued, in flight, dead letters, last success/error, oldest unsynced age")
    st.add_argument("--json", action="store_true", help="machine-readable output")
    st.add_argument("--kumiho-endpoint", metavar="HOST:PORT", help="override [kumiho] endpoint")
    st.add_argument("--workspace", metavar="NAME", help="workspace whose outbox to show")
    st.set_defaults(handler=_status)

    now = ssub.add_parser("now", help="sync until the outbox is empty; exit 1 if it could not")
    now.add_argument("--kumiho-endpoint", metavar="HOST:PORT", help="override [kumiho] endpoint")
    now.add_argument("--timeout", type=float, default=120.0, metavar="S", help="give up after S seconds (120)")
    now.add_argument("--workspace", metavar="NAME", help="workspace whose outbox to use (default: [workspace] name)")
    now.set_defaults(handler=_now)

    rd = ssub.add_parser("retry-dead", help="move dead letters back into the outbox (all, or the ids given)")
    rd.add_argument("capture_ids", nargs="*", metavar="CAPTURE_ID", help="dead letters to retry (default: all)")
    rd.add_argument("--workspace", metavar="NAME", help="workspace whose outbox to use (default: [workspace] name)")
    rd.set_defaults(handler=_retry_dead)

    ts = sub.add_parser("kumiho-test-server", help="serve the loopback Kumiho test server (for trials and tests)")
    ts.add_argument("--port", type=tcp_port, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    ts.add_argument("--require-token", action="store_true",
                    help="answer UNAUTHENTICATED unless calls carry the token in $KUMIHO_AUTH_TOKEN")
    ts.add_argument("--unavailable-rate", type=float, default=0.0, metavar="P",
                    help="fail this fraction of writes with UNAVAILABLE before committing")
    ts.add_argument("--lost-reply-rate", type=float, default=0.0, metavar="P",
                    help="commit this fraction of writes, then answer UNAVAILABLE (reply lost)")
    ts.add_argument("--delay", type=float, default=0.0, metavar="S", help="answer every call after S seconds")
    ts.set_defaults(handler=_test_server)


def _args(args: argparse.Namespace) -> dict[str, Any]:
    return {"workspace": getattr(args, "workspace", None), "kumiho_endpoint": getattr(args, "kumiho_endpoint", None)}


def _status(args: argparse.Namespace) -> int:
    status = run_op(args, "sync_status", _args(args))
    if args.json:
        print_json(status)
        return 0
    out = sys.stdout.write
    out(f"kumiho sync: {'enabled' if status['enabled'] else 'disabled ([kumiho] enabled = false)'}\n")
    if status["endpoint"]:
        endpoint = status["endpoint"]
    elif status["enabled"]:
        endpoint = f"(invalid) {status['endpoint_error']}"
    else:  # an empty endpoint is normal while sync is off
        endpoint = "(not set)"
    out(f"  endpoint        {endpoint}\n")
    out(f"  device          {status['device_id']}   project {status['project']}\n")
    out(f"  queued          {status['queued']}\n  in flight       {status['in_flight']}\n")
    out(f"  dead letters    {status['dead_letters']}\n  synced (total)  {status['synced_total']}\n")
    age = status["oldest_unsynced_age_s"]
    out(f"  oldest unsynced {'-' if age is None else f'{age:.1f} s'}\n")
    out(f"  last success    {status['last_success'] or 'never'}\n")
    err = status["last_error"]
    err_text = f"{err['at']} {err['code']}: {err['message']}" if err else "-"
    out(f"  last error      {err_text}\n")
    if status["paused"]:
        out(f"  PAUSED          {status['paused'].get('message') or status['paused'].get('reason')}\n")
    if status.get("link_down"):
        down = status["link_down"]
        out(f"  link down       since {down['since']} ({down['code']}, {down['failed_attempts']} failed attempt(s)); "
            "captures keep queueing\n")
    if status["next_attempt_in_s"]:
        out(f"  backing off     next attempt in {status['next_attempt_in_s']} s\n")
    ob = status["outbox"]
    out(f"  outbox          {ob['rows']}/{ob['max_rows']} rows, {ob['bytes'] / 2**20:.2f}/"
        f"{ob['max_bytes'] / 2**20:.0f} MiB, when full: {ob['full_policy']}\n")
    sec = status["secrets"]
    out(f"  secrets         policy {sec['policy']}: {sec['redacted_captures']} capture(s) redacted, "
        f"{sec['rejected_captures']} rejected\n")
    for d in status["dead"]:
        out(f"  dead {d['capture_id']}  {d['code']}: {d['reason']}\n")
    return 0


def _now(args: argparse.Namespace) -> int:
    result = run_op(args, "sync_now", {**_args(args), "timeout": args.timeout}, timeout=args.timeout + 30)
    if not result["enabled"]:
        print("note: [kumiho] enabled = false, so the runtime queues nothing new; drained what was queued",
              file=sys.stderr)
    print(f"synced: outbox empty ({result['synced']} capture(s) this run, {result['dead_letters']} dead letter(s))")
    return 0


def _retry_dead(args: argparse.Namespace) -> int:
    n = run_op(args, "sync_retry_dead", {**_args(args), "capture_ids": list(args.capture_ids)})["moved"]
    print(f"{n} dead letter(s) moved back to the outbox")
    return 0


def _test_server(args: argparse.Namespace) -> int:
    import os

    from edge_agent.sync.testserver import KumihoTestServer

    server = KumihoTestServer(args.port)
    f = server.faults
    if args.require_token:
        token = os.environ.get("KUMIHO_AUTH_TOKEN", "").strip()
        if not token:
            raise SyncError("--require-token needs the token in KUMIHO_AUTH_TOKEN")
        f.required_token = token
    f.pre_commit_failure_rate, f.post_commit_failure_rate, f.delay_s = (
        args.unavailable_rate, args.lost_reply_rate, args.delay)
    done = threading.Event()
    # Handlers first: whoever reads the line below may signal at once, and a SIGTERM that found the default
    # handler would kill the server instead of stopping it (exit -15, not 0).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    server.start()
    print(f"kumiho test server listening on {server.endpoint}", flush=True)
    while not done.wait(0.5):  # short waits: the handler's flag is acted on within half a second whatever woke us
        pass
    server.stop(grace=1.0)
    return 0
