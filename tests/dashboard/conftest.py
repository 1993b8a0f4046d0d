"""Status page fixtures: a runtime on the embedded defaults and a real daemon process on an ephemeral port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edge_agent.config import Settings
from edge_agent.runtime import Runtime

WAIT_S = 60.0


@pytest.fixture
def runtime(state: Path) -> Iterator[Runtime]:
    """A runtime on the embedded defaults (sim://nucleo-f401re, bundled datasheets, local memory)."""
    rt = Runtime.build(Settings(), state)
    yield rt
    rt.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Daemon:
    """`edge-agent --state S run --port 0` (embedded defaults: simulated board and the demo BME280 watch)."""

    def __init__(self, state: Path, *extra: str) -> None:
        self.state = state
        script = Path(sys.executable).with_name("edge-agent")
        cmd = [str(script)] if script.exists() else [
            sys.executable, "-c", "import sys; from edge_agent.cli import main; sys.exit(main())"]
        self.cli = cmd
        self.log_path = state.parent / "daemon.log"
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([*cmd, "--state", str(state), "run", "--port", "0", *extra],
                                     stdout=self._log, stderr=subprocess.STDOUT, env=dict(os.environ))
        deadline = time.monotonic() + WAIT_S
        while not (state / "daemon.json").exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"daemon did not start:\n{self.log_path.read_text()}")
            time.sleep(0.1)
        self.mcp_url: str = json.loads((state / "daemon.json").read_text())["url"]
        self.base = self.mcp_url.rsplit("/mcp", 1)[0]
        self.token = (state / "mcp-token").read_text().strip()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=WAIT_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._log.close()


@pytest.fixture
def daemon(state: Path) -> Iterator[Any]:
    d = Daemon(state)
    yield d
    d.stop()
