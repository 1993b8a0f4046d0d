"""The host driver against lines a broken or hostile device can send (pyserial's loop:// port).

The reader thread must survive every line: each test checks that a good reply sent after the bad
input still reaches its request, which fails (times out) if the reader died or the bad bytes
swallowed the good line.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.bridge.adapter import BridgeAdapter
from edge_agent.bus.bridge.link import Link
from edge_agent.bus.bridge.protocol import Garbage, decode_line, find_frame_start
from edge_agent.errors import AdapterUnavailableError, BusTimeoutError, ProtocolError

from .conftest import inject, reply, soon, wait_until


class _Stop(BaseException):
    """Stands for anything that ends the reader thread outside the per-line guard."""


def kill_reader(link: Link, why: str, *, once: bool = False) -> None:
    """End the link's reader thread with ``why`` and wait until it is dead.

    ``once``: only the first read fails, so a reopened port reads normally again.
    """
    port = link._port
    assert port is not None
    real_read = port.read

    def read(n: int = 1) -> bytes:
        if once:
            port.read = real_read  # type: ignore[method-assign]
        raise _Stop(why)

    port.read = read  # type: ignore[method-assign]
    assert wait_until(lambda: link.reader.thread is not None and not link.reader.thread.is_alive())


def assert_next_request_works(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, reply(pending.id))
    assert link.wait(pending, deadline=soon()) == "pong"
    assert link.reader_state() == "running"


def test_deeply_nested_json_under_the_length_cap_is_garbage_not_a_dead_reader(link: Link) -> None:
    line = b"[" * 1000
    assert isinstance(decode_line(line), Garbage)
    inject(link, line + b"\n")
    assert_next_request_works(link)
    assert link.stats.garbage_lines >= 1


def test_a_reply_with_a_non_ascii_digit_id_is_a_stray_not_a_dead_reader(link: Link) -> None:
    # "²".isdigit() is True but int("²") raises.
    inject(link, json.dumps({"id": "\u00b2", "ok": True, "result": 1}).encode() + b"\n")
    assert wait_until(lambda: link.stats.stray_replies == 1)
    assert_next_request_works(link)


def test_a_failure_while_handling_a_line_is_counted_and_the_reader_goes_on(link: Link,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    real = link.reader.on_boot
    calls: list[int] = []

    def broken(frame: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("surprise")
        real(frame)

    monkeypatch.setattr(link.reader, "on_boot", broken)
    inject(link, b'{"event":"boot","reset":"pin"}\n')
    assert wait_until(lambda: link.stats.reader_errors == 1)
    assert_next_request_works(link)


def test_a_reply_cut_off_without_newline_does_not_swallow_the_next_reply(link: Link) -> None:
    first = link.submit("ping", None, deadline=soon())
    second = link.submit("ping", None, deadline=soon())
    inject(link, reply(first.id)[:15])  # '{"id": "1", "ok' and then nothing: the board reset mid-line
    time.sleep(0.1)
    inject(link, reply(second.id))
    assert link.wait(second, deadline=soon()) == "pong"
    # The cut-off reply fails its own request at once, as a protocol error rather than a timeout.
    with pytest.raises(ProtocolError) as info:
        link.wait(first, deadline=soon())
    assert not isinstance(info.value, BusTimeoutError)
    assert "cut off" in str(info.value)
    assert link.stats.cut_off_lines == 1


def test_a_cut_off_fragment_before_a_boot_banner_still_lets_the_banner_through(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, b'{"id":"77","ok":tr{"event":"boot","reset":"pin"}\n')
    with pytest.raises(ProtocolError):
        link.wait(pending, deadline=soon())
    assert link.stats.resets == 1


def test_frame_start_is_only_found_where_a_whole_frame_follows() -> None:
    good = b'{"id":"2","ok":true,"result":{"nested":{"id":1}}}'
    assert find_frame_start(b'{"id":"1","ok":tr' + good) == len(b'{"id":"1","ok":tr')
    assert find_frame_start(good) is None
    assert find_frame_start(b'noise {"id":"3","cmd":"ping"}') is None  # a request echo is not a frame


def test_a_dead_reader_is_reported_by_health_and_the_link_reopens(link: Link) -> None:
    kill_reader(link, "reader killed", once=True)
    health = link.health()
    assert health["reader"].startswith("dead") and "reader killed" in health["reader"]
    assert health["connected"] is False
    assert wait_until(lambda: link.connected and link.stats.reconnects == 1)
    assert link.stats.reader_restarts == 1
    assert link.health()["reader"] == "running"
    assert_next_request_works(link)


def test_a_stalled_reader_is_reported_and_replaced() -> None:
    lk = Link("loop://", settle_s=0, stall_s=0.3)
    lk.open(handshake=False)
    release = threading.Event()
    try:
        stuck = lk.reader.thread
        real = lk.reader.on_line

        def hang(line: bytes) -> None:
            lk.reader.on_line = real  # type: ignore[method-assign]
            release.wait(10)

        lk.reader.on_line = hang  # type: ignore[method-assign]
        inject(lk, b"anything\n")
        assert wait_until(lambda: lk.reader_state().startswith("stalled"))
        pending = lk.submit("ping", None, deadline=soon()) if lk.connected else None
        assert lk.health()["reader"].startswith("stalled")
        if pending is not None:  # in flight on the stalled reader's port: failed, not left to time out
            with pytest.raises(AdapterUnavailableError):
                lk.wait(pending, deadline=soon())
        assert wait_until(lambda: lk.connected and lk.reader_state() == "running")
        assert lk.reader.thread is not stuck
        release.set()
        assert stuck is not None
        stuck.join(5)
        assert not stuck.is_alive()  # the replaced reader leaves once it wakes
        assert_next_request_works(lk)
    finally:
        release.set()
        lk.close()


def test_a_request_that_times_out_on_a_dead_reader_restarts_it(link: Link) -> None:
    kill_reader(link, "gone")
    pending = link.submit("ping", None, deadline=soon())
    with pytest.raises((BusTimeoutError, AdapterUnavailableError)):
        link.wait(pending, deadline=time.monotonic() + 0.3)
    assert link.stats.reader_restarts == 1
    assert wait_until(lambda: link.connected and link.reader_state() == "running")
    assert_next_request_works(link)


# --- i2c_scan result shape ----------------------------------------------------------------------


@pytest.fixture
def loop_adapter() -> Iterator[BridgeAdapter]:
    adapter = open_adapter("bridge://loop://?handshake=false")
    assert isinstance(adapter, BridgeAdapter)
    adapter.link.protocol = 1
    adapter.link._handshake_needed = False  # the test plays a protocol-1 board that already said hello
    try:
        yield adapter
    finally:
        adapter.close()


def _scan_answered_with(adapter: BridgeAdapter, result: object) -> list[int]:
    link = adapter.link
    bus = adapter.i2c(1)
    out: dict[str, object] = {}

    def call() -> None:
        try:
            out["found"] = bus.scan(0x08, 0x77)
        except Exception as exc:  # noqa: BLE001 - handed to the test thread
            out["error"] = exc

    thread = threading.Thread(target=call)
    thread.start()
    assert wait_until(lambda: any(p.cmd == "i2c_scan" for p in list(link.requests.pending.values())))
    rid = next(p.id for p in list(link.requests.pending.values()) if p.cmd == "i2c_scan")
    inject(link, reply(rid, result))
    thread.join(10)
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["found"]  # type: ignore[return-value]


def test_i2c_scan_returns_the_listed_addresses(loop_adapter: BridgeAdapter) -> None:
    assert _scan_answered_with(loop_adapter, [0x76, 0x3C]) == [0x3C, 0x76]


@pytest.mark.parametrize("result", [{"0x76": True}, "76", 118, None, [0x76, "0x3c"], [True], [0x80]])
def test_i2c_scan_result_that_is_not_a_list_of_addresses_is_a_protocol_error(loop_adapter: BridgeAdapter,
                                                                              result: object) -> None:
    with pytest.raises(ProtocolError, match="expected a list of 7-bit addresses"):
        _scan_answered_with(loop_adapter, result)


def test_adapter_health_reports_a_dead_reader_then_recovers(loop_adapter: BridgeAdapter) -> None:
    link = loop_adapter.link
    kill_reader(link, "reader killed")
    health = loop_adapter.health()
    assert health["ok"] is False and "reader" in health["detail"] and "dead" in health["detail"]
    assert wait_until(lambda: link.connected and link.reader_state() == "running")
    assert link.stats.reader_restarts == 1
