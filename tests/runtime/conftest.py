"""Daemon fixtures: `edge-agent run` as a subprocess, talking sd_notify to a socket the test owns."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

WAIT_S = 60.0  # upper bound for any single wait; the machine is shared and slow at times


def edge_agent_command() -> list[str]:
    """How to run this checkout's CLI in a subprocess (the venv script, else the interpreter)."""
    script = Path(sys.executable).with_name("edge-agent")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from edge_agent.cli import main; sys.exit(main())"]


class NotifySocket:
    """A unix datagram socket standing in for systemd's notify socket (abstract namespace)."""

    def __init__(self) -> None:
        self.name = f"@edge-agent-test-{uuid.uuid4().hex}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.name[1:])
        self.messages: list[dict[str, str]] = []

    def expect(self, key: str, value: str | None = None, timeout: float = WAIT_S) -> dict[str, str]:
        """Receive messages until one carries `key` (with `value` if given); return it."""
        self.sock.settimeout(timeout)
        while True:
            data = self.sock.recv(4096).decode()
            fields = dict(line.split("=", 1) for line in data.splitlines() if "=" in line)
            self.messages.append(fields)
            if key in fields and (value is None or fields[key] == value):
                return fields

    def expect_any(self, timeout: float = WAIT_S) -> dict[str, str]:
        """The next message, whatever it carries."""
        self.sock.settimeout(timeout)
        data = self.sock.recv(4096).decode()
        fields = dict(line.split("=", 1) for line in data.splitlines() if "=" in line)
        self.messages.append(fields)
        return fields

    def close(self) -> None:
        self.sock.close()


class DaemonProcess:
    """`edge-agent --state S [--config C] run --port 0` with NOTIFY_SOCKET and a short watchdog."""

    def __init__(self, state: Path, config: Path | None = None, watchdog_usec: int = 600_000,
                 port: int | None = 0) -> None:
        self.state, self.config = state, config
        self.notify = NotifySocket()
        self.log_path = state.parent / f"daemon-{uuid.uuid4().hex[:6]}.log"
        cmd = edge_agent_command()
        if config is not None:
            cmd += ["--config", str(config)]
        cmd += ["--state", str(state), "run"]
        if port is not None:
            cmd += ["--port", str(port)]
        env = dict(os.environ, NOTIFY_SOCKET=self.notify.name, WATCHDOG_USEC=str(watchdog_usec))
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self.ready: dict[str, str] = {}

    def wait_ready(self) -> dict[str, str]:
        """Block until READY=1 arrives (bounded)."""
        self.ready = self.notify.expect("READY", "1")
        return self.ready

    @property
    def url(self) -> str:
        return json.loads((self.state / "daemon.json").read_text())["url"]

    def token(self) -> str:
        return (self.state / "mcp-token").read_text().strip()

    def status_file(self) -> dict[str, Any]:
        return json.loads((self.state / "status.json").read_text())

    def send(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def stop(self, sig: int | None = signal.SIGTERM) -> int:
        """Send `sig` (None: send nothing), wait for exit (bounded), return the exit code."""
        if sig is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=WAIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._log.close()
            self.notify.close()
        return code

    def wait_exit(self) -> int:
        """Wait (bounded) for a daemon already told to stop; return the exit code.

        Never a second signal: once the event loop has closed, a late SIGTERM gets the default action
        and the exit code would be -15 instead of the clean shutdown's 0."""
        return self.stop(None)

    def log(self) -> str:
        return self.log_path.read_text()


@pytest.fixture
def daemon_factory(state: Path) -> Iterator[Any]:
    """Start daemons on demand; any still running at the end is killed."""
    started: list[DaemonProcess] = []

    def start(config: Path | None = None, state_dir: Path | None = None, **kw: Any) -> DaemonProcess:
        d = DaemonProcess(state_dir or state, config, **kw)
        started.append(d)
        return d

    yield start
    for d in started:
        if d.proc.poll() is None:
            d.stop(signal.SIGKILL)


@pytest.fixture
def edge_agent_cmd() -> list[str]:
    """The command prefix that runs `edge-agent`."""
    return edge_agent_command()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def notify_socket() -> Iterator[NotifySocket]:
    """A fake systemd notify socket."""
    sock = NotifySocket()
    yield sock
    sock.close()
