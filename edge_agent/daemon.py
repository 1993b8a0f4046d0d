"""`edge-agent run`: the long-running service.

The main thread runs one asyncio loop. It serves MCP over streamable HTTP, and a housekeeping tick
on the same loop sends systemd ``WATCHDOG=1`` (so a wedged loop stops the pings and systemd restarts
us), refreshes ``STATUS=`` and the status file, and applies SIGHUP reloads. Slow work (sync, memory
hygiene, re-indexing, watches) runs in background threads owned by the runtime.

sd_notify is a datagram to ``$NOTIFY_SOCKET`` (sd_notify(3)); it is a few lines with plain sockets,
so no extra dependency. Logs are one line per record; under journald each line carries the
``<N>`` syslog priority prefix journald understands.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.config import Settings, load_settings
from edge_agent.errors import ConfigError, EdgeAgentError
from edge_agent.paths import ensure_state_dir, open_private, write_private

if TYPE_CHECKING:  # imported when the daemon starts them (the mcp extra, the runtime's components)
    from edge_agent.mcp.server import HttpServer
    from edge_agent.mcp.socket_server import HubServer
    from edge_agent.runtime import Runtime

log = logging.getLogger(__name__)

STATUS_FILE = "status.json"
DAEMON_FILE = "daemon.json"
LOCK_FILE = "daemon.lock"
TICK_S = 1.0  # housekeeping period; the watchdog interval lowers it when shorter
STATUS_EVERY_S = 10.0  # how often the status is recomputed
STATUS_REWRITE_S = 300.0  # unchanged status is rewritten this rarely (SD cards wear out)


class DaemonError(EdgeAgentError):
    """The daemon could not start or keep serving."""


# --- sd_notify ------------------------------------------------------------------------------------


class Notifier:
    """Send sd_notify(3) messages to ``$NOTIFY_SOCKET``; a no-op when not started by systemd."""

    def __init__(self, address: str | None = None) -> None:
        addr = os.environ.get("NOTIFY_SOCKET", "") if address is None else address
        self._sock: socket.socket | None = None
        self._addr: str | bytes = ""
        if addr:
            # A leading '@' names a socket in the abstract namespace (Linux): the name starts with NUL.
            self._addr = "\0" + addr[1:] if addr.startswith("@") else addr
            if addr.startswith(("/", "@")):
                # Non-blocking: if the manager is slow to read and the socket queue is full, a ping is
                # dropped instead of wedging the main loop (which would stop the HTTP server too).
                kind = socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK
                self._sock = socket.socket(socket.AF_UNIX, kind)
        self.watchdog_s = _watchdog_interval()

    @property
    def enabled(self) -> bool:
        """True when a notification socket is configured."""
        return self._sock is not None

    def send(self, *lines: str) -> bool:
        """Send one message made of ``KEY=value`` lines; never raises (systemd may be gone)."""
        if self._sock is None:
            return False
        try:
            self._sock.sendto("\n".join(lines).encode(), self._addr)
            return True
        except BlockingIOError:
            log.debug("sd_notify queue full; dropped %s", lines[0])
            return False
        except OSError as exc:
            log.debug("sd_notify failed: %s", exc)
            return False

    def ready(self, status: str) -> bool:
        """Tell systemd we are serving (READY=1) with a human-readable status."""
        return self.send("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def status(self, status: str) -> bool:
        """Update the one-line status `systemctl status` shows."""
        return self.send(f"STATUS={status}")

    def watchdog(self) -> bool:
        """Keep-alive ping; systemd restarts the unit when they stop for WatchdogSec (sent only if enabled)."""
        return self.watchdog_s is not None and self.send("WATCHDOG=1")

    def reloading(self) -> bool:
        """Announce a configuration reload (systemd >= 253 wants MONOTONIC_USEC with it)."""
        usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        return self.send("RELOADING=1", f"MONOTONIC_USEC={usec}", "STATUS=reloading configuration")

    def stopping(self) -> bool:
        """Announce a graceful shutdown."""
        return self.send("STOPPING=1", "STATUS=stopping")

    def close(self) -> None:
        """Release the socket."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _watchdog_interval() -> float | None:
    """Seconds between pings: a third of WatchdogSec, so one late tick never trips it."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0:
        return None
    if pid and pid != str(os.getpid()):  # the watchdog is meant for another process
        return None
    return int(usec) / 1e6 / 3


# --- logging --------------------------------------------------------------------------------------

_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class _JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record).replace("\n", " | ")
        return f"<{_PRIORITY.get(record.levelno, 6)}>{text}"


def configure_daemon_logging(settings: Settings, verbosity: int = 0) -> None:
    """One line per record at the configured level; syslog priority prefixes under journald."""
    level = getattr(logging, settings.device.log_level.upper(), logging.INFO) - 10 * verbosity
    root = logging.getLogger()
    root.setLevel(max(level, logging.DEBUG))
    if os.environ.get("JOURNAL_STREAM"):
        for handler in root.handlers:
            handler.setFormatter(_JournalFormatter("%(name)s: %(message)s"))
    # The SDK and uvicorn are chatty at INFO (one line per request); keep them at WARNING.
    for name in ("mcp", "uvicorn", "uvicorn.error", "uvicorn.access", "httpx2", "httpx"):
        logging.getLogger(name).setLevel(max(logging.WARNING, level))


# --- the daemon -----------------------------------------------------------------------------------


@dataclass
class DaemonOptions:
    """How `edge-agent run` was invoked."""

    config_path: Path | None
    state_dir: Path
    http: bool | None = None  # None: [server] http_enabled
    host: str | None = None
    port: int | None = None


@dataclass
class _Flags:
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    reload: bool = False
    signal_name: str = ""


class Daemon:
    """Builds the runtime, serves MCP over HTTP, pings the watchdog, handles signals."""

    def __init__(self, settings: Settings, options: DaemonOptions, notifier: Notifier | None = None) -> None:
        self.settings = settings
        self.options = options
        self.notifier = notifier or Notifier()
        self.runtime: Runtime | None = None
        self.http_url: str | None = None
        self._token_file: Path | None = None
        self._http: HttpServer | None = None
        self._hub: HubServer | None = None  # the local socket
        self._reload_task: asyncio.Task[None] | None = None
        self._flags: _Flags | None = None
        self._bg_stop = threading.Event()
        self._last_status_write = 0.0
        self._last_status_check = 0.0
        self._last_status_body = ""
        self._last_summary = ""

    @property
    def _rt(self) -> Runtime:
        """The runtime, once ``run`` has built it (every caller runs after that point)."""
        if self.runtime is None:
            raise RuntimeError("the daemon's runtime is not built yet")
        return self.runtime

    # entry point ---------------------------------------------------------------------------------

    def run(self) -> int:
        """Run until SIGTERM/SIGINT; returns the process exit code."""
        try:
            return asyncio.run(self._main())
        finally:
            self.notifier.close()

    async def _main(self) -> int:
        from edge_agent.runtime import Runtime

        started = time.monotonic()
        self._flags = flags = _Flags()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._on_stop, sig)
        loop.add_signal_handler(signal.SIGHUP, self._on_reload)

        self.notifier.status("starting: building components")
        # The MCP SDK import is most of the start-up; overlap it with opening the index and the database
        # (SQLite and file reads release the GIL). The few modules both paths import are loaded here
        # first, so the two threads never wait on each other's module import locks.
        import pickle, queue, unicodedata  # noqa: E401, F401, I001

        preload = asyncio.create_task(asyncio.to_thread(_preload_mcp))  # the local socket serves MCP too
        self.runtime = await asyncio.to_thread(Runtime.build, self.settings, self.options.state_dir)
        if preload is not None:
            await preload
        exit_code = 0
        try:
            await self._start_hub()
            await self._start_http()
            self.runtime.start_background(self._bg_stop)
            self._write_daemon_file()
            summary = self._last_summary = self._summary()
            took = time.monotonic() - started
            self._write_status(force=True)
            self.notifier.ready(summary)
            log.info("ready in %.2fs: %s", took, summary)
            exit_code = await self._loop(flags)
        finally:
            await self._shutdown()
        return exit_code

    async def _loop(self, flags: _Flags) -> int:
        tick = min(TICK_S, self.notifier.watchdog_s or TICK_S)
        while not flags.stop.is_set():
            try:
                await asyncio.wait_for(flags.stop.wait(), timeout=tick)
            except TimeoutError:
                pass
            if flags.stop.is_set():
                break
            if self._http is not None and self._http.failed():
                log.error("MCP HTTP server stopped unexpectedly: %s; exiting so systemd restarts the service",
                          self._http.error)
                return 1
            if flags.reload and (self._reload_task is None or self._reload_task.done()):
                # The reload runs beside this loop, so the watchdog pings below keep coming while it works.
                flags.reload = False
                self._reload_task = asyncio.create_task(self._reload(), name="reload")
            # From the loop itself: if the loop wedges, the pings stop and systemd restarts us.
            if self.settings.server.watchdog:
                self.notifier.watchdog()
            self._write_status()
            summary = self._summary()
            if summary != self._last_summary:  # e.g. a component failed: `systemctl status` shows it
                self._last_summary = summary
                self.notifier.status(summary)
        if flags.signal_name != "SIGINT":  # Ctrl-C has said so already
            log.info("stopping on %s: finishing the current bus transaction, then closing", flags.signal_name)
        if self._reload_task is not None and not self._reload_task.done():
            await self._reload_task
        return 0

    # signals -------------------------------------------------------------------------------------

    def _on_stop(self, sig: int) -> None:
        assert self._flags is not None
        if sig == signal.SIGINT and not self._flags.stop.is_set():
            # Someone at a terminal pressed Ctrl-C: answer at once and whatever the log level, in one line.
            _say(STOPPING_ON_CTRL_C)
        self._flags.signal_name = signal.Signals(sig).name
        self._flags.stop.set()

    def _on_reload(self) -> None:
        assert self._flags is not None
        self._flags.reload = True

    async def _reload(self) -> None:
        self.notifier.reloading()
        path = self.options.config_path
        try:
            new = await asyncio.to_thread(load_daemon_settings, path)
        except ConfigError as exc:
            log.error("reload refused, keeping the running configuration: %s", str(exc).replace("\n", ";"))
            # READY=1 ends the reload for systemd either way; STATUS says it was refused.
            self.notifier.send("READY=1", f"STATUS=reload refused (invalid config); {self._summary()}")
            return
        old = self.settings
        try:
            changes = await asyncio.to_thread(self._rt.reload, new)
        except Exception:  # a bug in a component's reload must not take the service down
            log.exception("reload failed part-way; components keep their current state")
            self.notifier.send("READY=1", f"STATUS=reload failed (see log); {self._summary()}")
            return
        self.settings = new
        # The listening socket, its TLS context and the names it answers to are set when HTTP starts.
        keys = ("host", "port", "token_file", "allow_public_bind", "allowed_hosts", "allowed_origins", "tls_cert",
                "tls_key")
        changed = [k for k in keys if getattr(old.server, k) != getattr(new.server, k)]
        if changed:
            changes.append(f"[server] {', '.join(changed)} take effect on restart")
        log.info("reloaded %s: %s", path or "embedded defaults", "; ".join(changes) or "no changes")
        self._write_status(force=True)
        self.notifier.send("READY=1", f"STATUS={self._summary()}")

    # the local socket ----------------------------------------------------------------------------

    async def _start_hub(self) -> None:
        """Serve CLI commands, `edge-agent mcp` and the agent on <state>/hub.sock (needs the mcp extra).

        Without the socket a daemon would hold the hardware while every command beside it either opened
        the same lines itself or failed, so a daemon that cannot serve it does not start.
        """
        try:
            from edge_agent.mcp.socket_server import HubServer
        except ImportError as exc:
            raise DaemonError(f"the daemon serves CLI commands on its local socket, which needs the mcp extra "
                              f"({exc.name} is not installed); install it with: pip install "
                              "'edge-agent[mcp]' (on a Pi: 'edge-agent[linux,mcp]')") from None
        hub = HubServer(self._rt, self.options.state_dir)
        try:
            await hub.start()
        except (OSError, EdgeAgentError) as exc:
            raise DaemonError(f"cannot serve the local socket {hub.path}: {exc}") from exc
        self._hub = hub
        self._rt.mark("socket", True, "", path=str(hub.path))

    # MCP over HTTP -------------------------------------------------------------------------------

    def _http_wanted(self) -> bool:
        return self.settings.server.http_enabled if self.options.http is None else bool(self.options.http)

    async def _start_http(self) -> None:
        if not self._http_wanted():
            log.info("MCP HTTP server disabled ([server] http_enabled = false)")
            return
        try:
            from edge_agent.mcp.server import HttpServer
        except ImportError as exc:
            self._rt.mark("mcp_http", False, f"the MCP SDK is not installed ({exc.name}); "
                              "install it with: pip install 'edge-agent[mcp]'")
            log.error("MCP HTTP server not started: install the extra with: pip install 'edge-agent[mcp]'")
            return
        from edge_agent.mcp.netguard import is_loopback
        from edge_agent.mcp.token import ensure_token, token_path

        host, port, tls = http_address(self.settings, self.options)
        tpath = token_path(self.settings, self.options.state_dir)
        token = ensure_token(tpath)
        if not is_loopback(host):
            log.warning("HTTP bound to %s (reachable from the network): every request needs the bearer token in "
                        "%s%s", host, tpath, "" if tls else "; without [server] tls_cert/tls_key the token "
                        "crosses the network in clear text")
        http = HttpServer(self._rt, host=host, port=port, token=token, tls=tls)
        try:
            await http.start()
        except OSError as exc:
            # Running on without HTTP would report "ready" to systemd while every MCP client fails:
            # exit instead, so the unit shows the failure and restarts once the port is free.
            raise DaemonError(f"cannot serve MCP over HTTP on {host}:{port}: {exc.strerror or exc}; stop the "
                              f"other process using port {port}, or set [server] port (or --port) to a free "
                              "port, or turn HTTP off with [server] http_enabled = false") from None
        self._http = http
        self.http_url = http.url
        self._token_file = tpath
        self._rt.mark("mcp_http", True, "", url=http.url, token_file=str(tpath))

    # status --------------------------------------------------------------------------------------

    def _summary(self) -> str:
        rt = self.runtime
        failed = rt.components.get("mcp_http") if rt is not None else None
        if self.http_url:
            parts = [f"MCP {self.http_url} (bearer token in {self._token_file})"]
        elif failed is not None and not failed.ok:  # wanted, but the extra is missing or the port is taken
            parts = [f"MCP HTTP not started: {failed.detail}"]
        else:
            parts = ["MCP HTTP off (stdio: edge-agent mcp)"]
        if rt is not None:
            parts.append(rt.summary())
        return "; ".join(parts)

    def _write_daemon_file(self) -> None:
        config = self.options.config_path
        data = {"pid": os.getpid(), "url": self.http_url, "started_at": time.time(),
                "socket": str(self._hub.path) if self._hub is not None else None,
                "config": str(config.resolve()) if config is not None else None}
        _atomic_write(self.options.state_dir / DAEMON_FILE, json.dumps(data))

    def _write_status(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_status_check < STATUS_EVERY_S:
            return
        self._last_status_check = now
        try:
            data = self._rt.status()
            volatile = {k: data.pop(k, None) for k in ("uptime_s", "jobs")}
            body = json.dumps(data, default=str, sort_keys=True)
            if not force and body == self._last_status_body and now - self._last_status_write < STATUS_REWRITE_S:
                return
            data.update(volatile)
            from edge_agent.services.status import status_report

            daemon = {"pid": os.getpid(), "url": self.http_url, "written_at": time.time(),
                      "socket": str(self._hub.path) if self._hub is not None else None}
            data = status_report(json.loads(json.dumps(data, default=str)), daemon=daemon)
            _atomic_write(self.options.state_dir / STATUS_FILE, json.dumps(data, default=str))
            self._last_status_body, self._last_status_write = body, now
        except Exception as exc:  # status is advisory; never let it stop the loop
            log.warning("could not write %s: %s", STATUS_FILE, exc)

    # shutdown ------------------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        self.notifier.stopping()
        if self._http is not None:
            await self._http.stop()
        if self._hub is not None:
            await self._hub.stop()
        self._bg_stop.set()
        if self.runtime is not None:
            # close() waits for each adapter's in-flight transaction, commits and closes the store.
            await asyncio.to_thread(self.runtime.close)
        for name in (DAEMON_FILE,):
            try:
                (self.options.state_dir / name).unlink()
            except FileNotFoundError:
                pass
        log.info("stopped")


def http_address(settings: Settings, options: DaemonOptions) -> tuple[str, int, tuple[str, str] | None]:
    """Host, port and TLS files to serve HTTP on; DaemonError for a public bind not allowed or unreadable TLS files.

    Checked before anything is built, so a refused address costs no index build or database migration.
    """
    from edge_agent.mcp.netguard import check_bind

    server = settings.server
    host = options.host or server.host
    port = server.port if options.port is None else options.port
    try:
        check_bind(host, server.allow_public_bind)
    except ConfigError as exc:
        raise DaemonError(str(exc)) from None
    if not server.tls_cert:
        return host, port, None

    def relative(value: str) -> str:
        p = Path(os.path.expanduser(value))  # relative to the config file's folder, like token_file
        return str(p if p.is_absolute() or settings.source is None else settings.source.parent / p)

    tls = (relative(server.tls_cert), relative(server.tls_key))
    for f in tls:
        if not os.access(f, os.R_OK):
            raise DaemonError(f"[server] TLS file {f} cannot be read by this user; fix the path or its permissions, "
                              "or remove tls_cert/tls_key to serve plain HTTP on loopback")
    return host, port, tls


def _preload_mcp() -> None:
    """Import the MCP server module (and with it the SDK); an ImportError is reported later by _start_http."""
    try:
        import edge_agent.mcp.server  # noqa: F401
    except ImportError:
        pass


def _atomic_write(path: Path, text: str) -> None:
    write_private(path, text)


def load_daemon_settings(path: Path | None) -> Settings:
    """Load the config; the embedded defaults (no file) also run the demo watch.

    The demo samples its own simulated NUCLEO-F401RE whose BME280 turns anomalous after a while, so a
    first `make run` shows a sensor capture being produced end to end without touching the board the
    MCP tools drive. It uses the bundled model when an interpreter (the `ml` extra) is installed, else
    a rule-only watch.
    """
    settings = load_settings(path)
    if path is None and not settings.watch:
        import importlib.util

        from edge_agent.watch.demo import demo_watch

        has_ml = any(importlib.util.find_spec(m) for m in ("ai_edge_litert", "tflite_runtime"))
        settings = settings.model_copy(update={"watch": [demo_watch(interval_s=0.5, model=has_ml)]})
    return settings


#: glibc's mallopt(3) parameter number for the arena cap (M_ARENA_MAX in malloc.h).
_M_ARENA_MAX = -8
#: Heap arenas the daemon allows: its main loop plus one for all worker threads.
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's heap arenas before the daemon starts its threads; True when the cap was set.

    glibc gives each thread that allocates concurrently an arena of its own (up to 8 per core), and
    memory freed in one arena is never reused by another: the start-up threads (building the
    components while the MCP SDK is imported) and the watch, sync and server workers would each
    keep a partly empty arena for the life of the process. Two arenas keep the main loop apart from
    the workers without that spread. An operator's own ``MALLOC_ARENA_MAX`` wins; other C libraries
    (no ``mallopt``) are left alone.
    """
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


STOPPING_ON_CTRL_C = "edge-agent: Ctrl-C: stopping (finishing the current bus transaction, then closing)"


def _say(line: str) -> None:
    """One line for the person at the terminal, on stderr, past the log level."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def run_daemon(options: DaemonOptions, verbosity: int = 0) -> int:
    """Load settings and run the daemon in the foreground (the `edge-agent run` handler)."""
    limit_malloc_arenas()  # before any thread exists
    settings = load_daemon_settings(options.config_path)
    configure_daemon_logging(settings, verbosity)
    # `kill -USR1 <pid>` writes every thread's stack to stderr (the journal): for diagnosing a hang.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    ensure_state_dir(options.state_dir)
    if (settings.server.http_enabled if options.http is None else options.http):
        http_address(settings, options)  # a refused address or unreadable TLS file: fail before building
    lock = _lock_state_dir(options.state_dir)
    try:
        log.info("edge-agent starting: config %s, state %s", options.config_path or "embedded defaults",
                 options.state_dir)
        code = Daemon(settings, options).run()
    except KeyboardInterrupt:  # Ctrl-C before the loop took over the signal (during start-up)
        _say(STOPPING_ON_CTRL_C)
        code = 130
    finally:
        lock.close()
    sys.stderr.flush()
    return code


def _lock_state_dir(state_dir: Path) -> Any:
    """Hold <state>/daemon.lock for the daemon's life: two daemons on one state would both sync and watch."""
    import fcntl

    fh = open_private(state_dir / LOCK_FILE, "a+")  # held open until the daemon exits
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "another process"
        fh.close()
        if holder.isdigit():
            from edge_agent.holders import command_line

            holder = f"{holder}: {command_line(int(holder))}"
        raise DaemonError(f"state directory {state_dir} is in use by edge-agent run (pid {holder}); stop that "
                          "one first (CLI commands and `edge-agent mcp` already go through it), or give this "
                          "one its own --state directory") from None
    fh.seek(0)
    fh.truncate()
    fh.write(str(os.getpid()))
    fh.flush()
    return fh
