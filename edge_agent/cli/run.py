"""`edge-agent run | mcp | status | service install`: the service and its agent-facing server.

Imports of the runtime, the daemon and the MCP SDK happen inside the handlers, so `--help` stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from edge_agent.cli._common import print_json, tcp_port


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run the service: MCP over HTTP, background sync and jobs (foreground)")
    p.add_argument("--no-http", dest="http", action="store_false", default=None,
                   help="do not serve MCP over HTTP (overrides [server] http_enabled)")
    p.add_argument("--host", help="HTTP listen address (default [server] host, 127.0.0.1)")
    p.add_argument("--port", type=tcp_port, help="HTTP port (default [server] port, 8765; 0 picks a free one)")
    p.set_defaults(handler=_run)

    m = sub.add_parser("mcp", help="serve MCP over stdin/stdout (for clients that spawn the server)")
    m.set_defaults(handler=_mcp)

    s = sub.add_parser("status", help="adapters, datasheet index, memory, outbox and last sync on one screen")
    s.add_argument("--json", action="store_true", help="print the status as JSON")
    s.set_defaults(handler=_status)

    svc = sub.add_parser("service", help="install the systemd unit, udev rules, sysusers and tmpfiles snippets")
    ssub = svc.add_subparsers(dest="service_command", metavar="ACTION", required=True)
    inst = ssub.add_parser("install", help="write the systemd files (run as root, or with --prefix)")
    inst.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    inst.add_argument("--prefix", default="/", help="root to install under (default /); for packaging and tests")
    inst.add_argument("--exec", dest="exec_path", help="edge-agent executable for ExecStart "
                      "(default: the one running now)")
    inst.set_defaults(handler=_service_install)


def _config_path(args: argparse.Namespace) -> Path | None:
    from edge_agent.paths import find_config

    return find_config(getattr(args, "config", None))


def _run(args: argparse.Namespace) -> int:
    from edge_agent.cli._common import state_from
    from edge_agent.daemon import DaemonOptions, run_daemon

    options = DaemonOptions(config_path=_config_path(args), state_dir=state_from(args).resolve(),
                            http=args.http, host=args.host, port=args.port)
    return run_daemon(options, args.verbose)


def _mcp(args: argparse.Namespace) -> int:
    import logging
    import signal

    from edge_agent.cli._common import state_from
    from edge_agent.hub.client import find_client
    from edge_agent.paths import state_dir

    client = find_client(state_dir(getattr(args, "state", None)))
    if client is not None:  # the daemon owns the hardware: relay the client's messages to it
        from edge_agent.mcp.relay import relay_stdio

        return relay_stdio(client)
    from edge_agent.config import load_settings
    from edge_agent.daemon import configure_daemon_logging
    from edge_agent.runtime import Runtime

    settings = load_settings(_config_path(args))
    configure_daemon_logging(settings, args.verbose)
    try:
        from edge_agent.mcp.server import run_stdio
    except ImportError as exc:
        print(f"edge-agent: error: the MCP SDK is not installed ({exc.name}); "
              "install it with: pip install 'edge-agent[mcp]'", file=sys.stderr)
        return 1
    runtime = Runtime.build(settings, state_from(args).resolve())

    def _terminate(signum: int, frame: Any) -> None:
        # The SDK reads stdin in a worker thread that a signal cannot interrupt, so a normal unwind
        # would hang on it. Close the runtime here (this waits for the bus transaction in flight on its
        # worker thread, then closes the adapters and the store) and leave without that unwind.
        logging.getLogger(__name__).info("%s: closing", signal.Signals(signum).name)
        runtime.close()
        logging.shutdown()
        os._exit(0)

    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)
    try:
        run_stdio(runtime)
    finally:
        runtime.close()  # stdin closed: the client is gone
    return 0


# --- status -----------------------------------------------------------------------------------------


def collect_status(args: argparse.Namespace) -> dict[str, Any]:
    """The runtime_status action: the running daemon's live report (else the status file it writes, when it
    is too busy to answer), else one computed here from the files (see LocalOps)."""
    from edge_agent.cli._common import pid_alive, settings_from, state_from
    from edge_agent.hub.client import HubError
    from edge_agent.hub.connect import connect, json_object

    state = state_from(args, create=False)
    try:
        with connect(state, lambda: settings_from(args)) as services:
            return dict(json_object(services.call("runtime_status", {}, timeout=30), "runtime_status"))
    except HubError:
        pass  # the daemon is stopping or busy: fall back to the file it writes
    from edge_agent.daemon import STATUS_FILE

    try:
        data = json.loads((state / STATUS_FILE).read_text())
        pid = int(data.get("daemon", {}).get("pid", 0))
        if pid and pid_alive(pid):
            data["running"] = True
            age = max(0.0, time.time() - float(data["daemon"].get("written_at", 0)))
            data["status_age_s"] = round(age, 1)
            if isinstance(data.get("uptime_s"), int | float):
                data["uptime_s"] = round(data["uptime_s"] + age, 1)
            return dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    from edge_agent.hub.connect import LocalOps  # the daemon went away meanwhile: report from the files

    with LocalOps(settings_from(args), state) as local:
        return dict(json_object(local.call("runtime_status", {}), "runtime_status"))


def _status(args: argparse.Namespace) -> int:
    data = collect_status(args)
    if args.json:
        print_json(data)
        return 0
    print(render_status(data))
    if data.get("running") and (note := _config_note(args, data.get("config"))):
        print(note)
    return 0


def _config_note(args: argparse.Namespace, running: object) -> str:
    """When the daemon runs with another configuration than a command here would load, say so (once, here:
    every command beside the daemon runs there, under the daemon's configuration)."""
    wanted = _config_path(args)
    mine = str(wanted.resolve()) if wanted is not None else "embedded defaults"
    if running in (None, mine):
        return ""
    return (f"note: commands run in the daemon under its configuration ({running}), not {mine}, which a command "
            "would load here without a daemon; restart the daemon with --config to change it")


def render_status(data: dict[str, Any]) -> str:
    """One screen of text for `edge-agent status`."""
    lines = []
    daemon = data.get("daemon") or {}
    if data.get("running"):
        lines.append(f"edge-agent {data.get('version', '')}: running (pid {daemon.get('pid')}, "
                     f"up {_duration(data.get('uptime_s'))}), MCP {daemon.get('url') or 'HTTP off'}")
    else:
        lines.append(f"edge-agent {data.get('version', '')}: not running (state {data.get('state_dir')})")
    lines.append(f"config: {data.get('config')}")
    lines.append("adapters:")
    for a in data.get("adapters", []):
        mark = {True: "ok  ", False: "FAIL", None: "-   "}[a.get("ok")]
        detail = a.get("detail") or ""
        lines.append(f"  {mark} {a.get('name')}: {a.get('url')} [{a.get('board')}] {detail}".rstrip())
    if not data.get("adapters"):
        lines.append("  (none configured)")
    ds = data.get("datasheets") or {}
    if ds.get("ok"):
        lines.append(f"datasheets: {ds.get('files')} files, {ds.get('chunks')} chunks ({ds.get('dir')})")
    else:
        lines.append(f"datasheets: unavailable: {ds.get('detail')}")
    mem = data.get("memory") or {}
    comp = (data.get("components") or {}).get("memory", {})
    if comp.get("ok") and comp.get("enabled", True):
        lines.append(f"memory: {mem.get('live', '?')} live entries ({mem.get('archived', 0)} archived, "
                     f"{mem.get('superseded', 0)} superseded), {mem.get('captures', 0)} captures, "
                     f"{mem.get('with_kref', 0)} synced; {_size(_db_size(mem))} in {mem.get('db_path', '?')}")
    else:
        lines.append(f"memory: {comp.get('detail') or 'off'}")
    if mem.get("recovered_from"):
        lines.append(f"  the database was found damaged and set aside as {mem['recovered_from']}; a fresh one was "
                     "started (the old file is kept for `sqlite3 FILE .recover`)")
    sync = data.get("sync") or {}
    depth = sync.get("outbox_depth", sync.get("pending", 0))
    if sync.get("enabled"):
        last = sync.get("last_success") or sync.get("last_sync") or "never"
        lines.append(f"sync: outbox {depth}, last sync {last}"
                     + (f", last error: {sync['last_error']}" if sync.get("last_error") else ""))
    else:
        lines.append(f"sync: {sync.get('detail') or 'off'}; outbox {depth}")
    watches = data.get("watches") or []
    if watches:
        lines.append("watches: " + ", ".join(f"{w.get('name')} ({w.get('state', '?')})" for w in watches)
                     + (f"; {data['watch_captures']} captures since start" if data.get("watch_captures") else ""))
    for name, comp in (data.get("components") or {}).items():
        if comp.get("ok") is False and name not in ("memory", "sync", "datasheets", "adapters"):
            lines.append(f"{name}: unavailable: {comp.get('detail')}")
    return "\n".join(lines)


def _db_size(mem: dict[str, Any]) -> int | None:
    """Database plus WAL: until a checkpoint, recent writes live only in the -wal file."""
    sizes = [mem.get(k) for k in ("db_bytes", "wal_bytes")]
    if not any(isinstance(n, int) for n in sizes):
        return None
    return sum(n for n in sizes if isinstance(n, int))


def _size(n: Any) -> str:
    try:
        value = float(n)
    except (TypeError, ValueError):
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return "?"


def _duration(seconds: Any) -> str:
    try:
        s = int(float(seconds))
    except (TypeError, ValueError):
        return "?"
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# --- service install ----------------------------------------------------------------------------------

#: (file in systemd/, install path relative to the prefix)
SERVICE_FILES = (
    ("edge-agent.service", "etc/systemd/system/edge-agent.service"),
    ("60-edge-agent.rules", "etc/udev/rules.d/60-edge-agent.rules"),
    ("edge-agent.sysusers", "usr/lib/sysusers.d/edge-agent.conf"),
    ("edge-agent.tmpfiles", "usr/lib/tmpfiles.d/edge-agent.conf"),
)
DEFAULT_EXEC = "/opt/edge-agent/venv/bin/edge-agent"


def systemd_dir() -> Path:
    """The unit templates: packaged in the wheel, else the checkout's systemd/ folder."""
    from importlib import resources

    try:
        packaged = Path(str(resources.files("edge_agent") / "_systemd"))
        if packaged.is_dir():
            return packaged
    except (ModuleNotFoundError, TypeError):  # pragma: no cover
        pass
    return Path(__file__).resolve().parent.parent.parent / "systemd"


def render_service_files(exec_path: str) -> list[tuple[str, str]]:
    """(install path relative to the prefix, content) for every file, ExecStart pointing at `exec_path`."""
    src = systemd_dir()
    out = []
    for name, dest in SERVICE_FILES:
        text = (src / name).read_text()
        if name.endswith(".service"):
            text = text.replace(DEFAULT_EXEC, exec_path)
        out.append((dest, text))
    return out


def _service_install(args: argparse.Namespace) -> int:
    from edge_agent.errors import ConfigError

    exec_path = args.exec_path or _current_exec()
    prefix = Path(args.prefix)
    files = render_service_files(exec_path)
    for rel, text in files:
        target = prefix / rel
        if args.dry_run:
            print(f"# would write {target}")
            print(text.rstrip() + "\n")
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.tmp")
            tmp.write_text(text)
            tmp.chmod(0o644)
            os.replace(tmp, target)
        except PermissionError:
            raise ConfigError(f"cannot write {target}: permission denied; run as root, or pass --prefix DIR "
                              "to stage the files elsewhere") from None
        print(f"wrote {target}")
    if not args.dry_run and str(prefix) == "/":
        print("next: systemd-sysusers && systemd-tmpfiles --create && udevadm control --reload && "
              "systemctl daemon-reload && systemctl enable --now edge-agent")
    return 0


def _current_exec() -> str:
    """The edge-agent script of this installation (the venv's bin/edge-agent), absolute."""
    candidate = Path(sys.executable).parent / "edge-agent"
    if candidate.exists():
        return str(candidate)
    argv0 = Path(sys.argv[0])
    return str(argv0.resolve()) if argv0.name == "edge-agent" and argv0.exists() else DEFAULT_EXEC
