"""SIGTERM while a bus transaction is in flight on a real firmware link: it completes, then the daemon exits.

The board is the host build of the firmware on a pty behind `bridge://`, reached through a relay pty
that holds the `gpio_write` request line (as if the board were busy): the daemon gets SIGTERM only once
the write is provably on the wire, and the write must still reach the board and be answered before the
adapters close.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import tty
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def firmware(host_firmware: Any) -> Any:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    return host_firmware


def _call_gpio_write(url: str, token: str, out: dict[str, Any]) -> None:
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def go() -> None:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (r, w),
            ClientSession(r, w, read_timeout_seconds=60) as s,
        ):
            await s.initialize()
            # The SDK validates a result against the tool's output schema and fetches the schemas with
            # tools/list the first time; do that now, not after the answer, when the stopping daemon no
            # longer accepts connections (that second request was the intermittent ConnectError).
            await s.list_tools()
            out["initialized"] = True
            out["calling"].set()
            res = await s.call_tool("gpio_write", {"pin": "red_led", "value": 1})
            out["result"] = res

    try:
        anyio.run(go)
    except BaseException as exc:  # the connection may close as the server stops; the result decides
        out.setdefault("error", exc)


class _HoldingRelay:
    """A pty between the daemon and the firmware that holds the first gpio_write request line.

    Holding the request on the wire is the event the test waits for: the daemon has sent it and is
    blocked in the transaction, so SIGTERM arrives with the write provably in flight.
    """

    def __init__(self, firmware_path: Path, directory: Path) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = directory / "ttyRELAY0"
        os.symlink(os.ttyname(self._slave), self.path)
        self._fw = os.open(firmware_path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self._fw)
        self.held = threading.Event()
        self.release = threading.Event()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._up, daemon=True),
                         threading.Thread(target=self._down, daemon=True)]
        for t in self._threads:
            t.start()

    def _read(self, fd: int) -> bytes | None:
        while not self._stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    return os.read(fd, 4096)
                except OSError:
                    return None
        return None

    def _up(self) -> None:  # daemon -> firmware, line by line
        buf = b""
        while (data := self._read(self._master)) is not None:
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if b'"gpio_write"' in line and not self.held.is_set():
                    self.held.set()
                    self.release.wait(60)
                os.write(self._fw, line + b"\n")

    def _down(self) -> None:  # firmware -> daemon, as it comes
        while (data := self._read(self._fw)) is not None:
            os.write(self._master, data)

    def close(self) -> None:
        self.release.set()
        self._stop.set()
        for t in self._threads:
            t.join(5)
        for fd in (self._master, self._slave, self._fw):
            os.close(fd)
        self.path.unlink(missing_ok=True)


def test_sigterm_lets_the_bus_transaction_in_flight_finish_before_closing(
        daemon_factory: Any, firmware: Any, tmp_path: Path) -> None:
    relay = _HoldingRelay(firmware.path, tmp_path)
    config = tmp_path / "edge-agent.toml"
    config.write_text(
        '[[peripherals.boards]]\nboard = "nucleo-f401re"\nname = "bench"\ntransport = "serial"\n'
        f'url = "bridge://{relay.path}?timeout_scale=20"\n\n'
        '[hardware.safety.adapters.bench]\nwritable_gpio = ["LD2"]\n')
    try:
        d = daemon_factory(config)
        d.wait_ready()
        assert d.status_file()["adapters"][0]["ok"] is True

        out: dict[str, Any] = {"calling": threading.Event()}
        client = threading.Thread(target=_call_gpio_write, args=(d.url, d.token(), out))
        client.start()
        assert relay.held.wait(60), out  # the write is on the wire and the board has not answered
        d.send(signal.SIGTERM)
        d.notify.expect("STOPPING", "1")
        assert d.proc.poll() is None  # still waiting for the transaction
        relay.release.set()
        assert d.wait_exit() == 0
    finally:
        relay.close()
    client.join(60)
    result = out.get("result")
    assert result is not None and not result.is_error, out
    assert result.structured_content["pin"] == "PA5"

    from edge_agent.bus import open_adapter
    from edge_agent.config import parse_settings

    safety = parse_settings({"hardware": {"safety": {"adapters": {"bench": {"read_only": True}}}}}).hardware.safety
    with open_adapter(f"bridge://{firmware.path}", name="bench", safety=safety) as adapter:
        assert adapter.gpio_read("PA5") == 1  # the write reached the board before the daemon closed the link
