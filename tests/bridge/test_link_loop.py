"""Host-driver behaviour on pyserial's loop:// port, where the test plays the firmware's side.

On loop:// every byte the link writes comes straight back, so each request is also echoed as a
line that is not a reply; the link must skip it like any other noise. The test then writes the
firmware's lines into the same port (``inject``) to script exact wire situations.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

from edge_agent.bus.bridge.link import Link
from edge_agent.bus.bridge.protocol import FirmwareResetError, UnsupportedCommandError
from edge_agent.errors import AdapterUnavailableError, BusTimeoutError, I2CNackError, ProtocolError

from .conftest import inject, reply, soon, wait_until


def test_reply_is_found_by_id_among_wrong_ids_and_garbage(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, reply("99", "not yours") + b"\x00\xff noise \xfe\n" + reply(pending.id))
    assert link.wait(pending, deadline=soon()) == "pong"
    assert link.stats.stray_replies == 1
    assert link.stats.garbage_lines >= 2  # the echoed request and the noise


def test_pipelined_replies_arriving_out_of_order_reach_their_own_requests(link: Link) -> None:
    a = link.submit("adc_read", {"pin": "A0"}, deadline=soon())
    b = link.submit("adc_read", {"pin": "A1"}, deadline=soon())
    inject(link, reply(b.id, 2000) + reply(a.id, 1000))
    assert link.wait(a, deadline=soon()) == 1000
    assert link.wait(b, deadline=soon()) == 2000


def test_a_reply_split_across_reads_is_reassembled(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    whole = reply(pending.id)
    inject(link, whole[:9])
    time.sleep(0.1)  # let the reader consume the first half on its own
    inject(link, whole[9:])
    assert link.wait(pending, deadline=soon()) == "pong"


def test_timed_out_request_raises_and_its_late_reply_is_skipped_and_counted(link: Link) -> None:
    pending = link.submit("ping", None, deadline=time.monotonic() + 0.2)
    with pytest.raises(BusTimeoutError):
        link.wait(pending, deadline=time.monotonic() + 0.2)
    inject(link, reply(pending.id))
    assert wait_until(lambda: link.stats.late_replies == 1)
    nxt = link.submit("ping", None, deadline=soon())
    inject(link, reply(nxt.id))
    assert link.wait(nxt, deadline=soon()) == "pong"
    assert link.stats.timeouts == 1


def test_duplicate_reply_is_counted_not_delivered_twice(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, reply(pending.id) + reply(pending.id))
    assert link.wait(pending, deadline=soon()) == "pong"
    assert wait_until(lambda: link.stats.late_replies == 1)


def test_boot_banner_mid_command_fails_the_request_with_firmware_reset(link: Link) -> None:
    pending = link.submit("gpio_write", {"pin": 13, "value": 1}, deadline=soon())
    inject(link, b'{"event":"boot","protocol":1,"board":"nucleo-f401re","firmware":"0.1.0","reset":"pin"}\n')
    with pytest.raises(FirmwareResetError):
        link.wait(pending, deadline=soon())
    assert link.stats.resets == 1
    assert link.last_boot is not None and link.last_boot["reset"] == "pin"


def test_a_flood_of_noise_fails_the_request_before_its_deadline() -> None:
    lk = Link("loop://", settle_s=0, max_stray=4)
    lk.open(handshake=False)
    try:
        pending = lk.submit("ping", None, deadline=time.monotonic() + 30)
        inject(lk, b"noise\n" * 10)
        # ProtocolError (noise bound), not BusTimeoutError (the 30 s deadline).
        with pytest.raises(ProtocolError) as info:
            lk.wait(pending, deadline=time.monotonic() + 30)
        assert not isinstance(info.value, BusTimeoutError)
    finally:
        lk.close()


def test_overlong_line_is_dropped_up_to_its_newline_and_the_next_reply_works(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, b"A" * 5000 + b"\n" + reply(pending.id))
    assert link.wait(pending, deadline=soon()) == "pong"
    assert link.stats.overlong_lines == 1


def test_error_frame_without_id_is_counted_and_skipped(link: Link) -> None:
    pending = link.submit("ping", None, deadline=soon())
    inject(link, b'{"id":null,"ok":false,"result":"","error":"malformed","code":1}\n' + reply(pending.id))
    assert link.wait(pending, deadline=soon()) == "pong"
    assert link.stats.error_frames_without_id == 1


def test_error_reply_maps_to_the_bus_error_with_the_request_address(link: Link) -> None:
    pending = link.submit("i2c_read", {"addr": 0x42, "len": 1}, deadline=soon())
    inject(link, json.dumps({"id": pending.id, "ok": False, "result": "", "error": "no ACK", "code": 9}).encode()
           + b"\n")
    with pytest.raises(I2CNackError) as info:
        link.wait(pending, deadline=soon(), address=0x42)
    assert info.value.address == 0x42


def test_more_than_the_window_in_flight_waits_then_times_out(link: Link) -> None:
    held = [link.submit("ping", None, deadline=soon()) for _ in range(8)]
    with pytest.raises(BusTimeoutError):
        link.submit("ping", None, deadline=time.monotonic() + 0.2)
    for p in held:
        inject(link, reply(p.id))
    for p in held:
        assert link.wait(p, deadline=soon()) == "pong"
    extra = link.submit("ping", None, deadline=soon())  # the window is free again
    inject(link, reply(extra.id))
    assert link.wait(extra, deadline=soon()) == "pong"


def test_unknown_argument_is_refused_before_anything_is_sent(link: Link) -> None:
    with pytest.raises(ProtocolError):
        link.submit("gpio_write", {"pin": 13, "vlaue": 1}, deadline=soon())
    assert link.stats.requests == 0


def test_closed_link_refuses_new_requests_and_fails_those_in_flight() -> None:
    lk = Link("loop://", settle_s=0)
    lk.open(handshake=False)
    pending = lk.submit("ping", None, deadline=soon())
    lk.close()
    with pytest.raises(AdapterUnavailableError):
        lk.wait(pending, deadline=soon())
    with pytest.raises(AdapterUnavailableError):
        lk.submit("ping", None, deadline=soon())


def _protocol0_firmware(server: socket.socket, stop: threading.Event) -> None:
    """Revka's protocol-0 firmware behaviour: string results, no hello, no codes."""
    conn, _ = server.accept()
    conn.settimeout(0.1)
    buf = b""
    with conn:
        while not stop.is_set():
            try:
                data = conn.recv(4096)
            except TimeoutError:
                continue
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                req = json.loads(line)
                if req["cmd"] == "ping":
                    out = {"id": req["id"], "ok": True, "result": "pong"}
                elif req["cmd"] == "gpio_read":
                    out = {"id": req["id"], "ok": True, "result": "0"}
                else:
                    out = {"id": req["id"], "ok": False, "result": "", "error": "Unknown command"}
                conn.sendall(json.dumps(out).encode() + b"\n")


def test_protocol0_firmware_is_detected_and_limited_to_its_four_commands() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    thread = threading.Thread(target=_protocol0_firmware, args=(server, stop), daemon=True)
    thread.start()
    lk = Link(f"socket://127.0.0.1:{server.getsockname()[1]}", settle_s=0)
    try:
        lk.open()
        assert lk.protocol == 0
        assert lk.request("ping") == "pong"
        assert lk.request("gpio_read", {"pin": 13}) == "0"
        with pytest.raises(UnsupportedCommandError):
            lk.request("i2c_scan")
    finally:
        lk.close()
        stop.set()
        thread.join(timeout=5)
        server.close()


def test_large_requests_wait_for_room_in_the_firmware_receive_budget(link: Link) -> None:
    """Three 128-byte SPI payloads (~330 bytes each) exceed the 768-byte budget: the third waits."""
    from edge_agent.bus.bridge.link import RX_BUDGET

    big = {"data": "a5" * 128}
    first = link.submit("spi_transfer", big, deadline=soon())
    second = link.submit("spi_transfer", big, deadline=soon())
    assert 2 * first.nbytes <= RX_BUDGET < 3 * first.nbytes
    with pytest.raises(BusTimeoutError):
        link.submit("spi_transfer", big, deadline=time.monotonic() + 0.2)
    inject(link, reply(first.id, "5a" * 128))
    assert link.wait(first, deadline=soon()) == "5a" * 128
    third = link.submit("spi_transfer", big, deadline=soon())  # room again
    inject(link, reply(second.id, "00") + reply(third.id, "11"))
    assert link.wait(second, deadline=soon()) == "00"
    assert link.wait(third, deadline=soon()) == "11"


def test_a_single_request_is_never_blocked_by_the_byte_budget(link: Link) -> None:
    pending = link.submit("i2c_write", {"addr": 0x50, "data": "ff" * 128}, deadline=soon())
    inject(link, reply(pending.id, "done"))
    assert link.wait(pending, deadline=soon()) == "done"


def test_a_request_waiting_for_a_reconnect_handshakes_first_so_the_boot_banner_cannot_fail_it() -> None:
    # After a replug the new board's boot banner may still be on the wire when the link reopens the
    # port. A request that was waiting for the reconnect must not be the one that banner fails: the
    # handshake (which retries once on a banner) has to go first.
    lk = Link("loop://", settle_s=0)
    lk.open(handshake=False)
    hello = {"protocol": 1, "board": "nucleo-f401re", "firmware": "0.1.0", "commands": []}

    def pending(cmd: str, skip: str = "") -> str | None:
        return next((p.id for p in list(lk.requests.pending.values()) if p.cmd == cmd and p.id != skip), None)

    def ping_in_thread(out: dict[str, object]) -> threading.Thread:
        def call() -> None:
            try:
                out["result"] = lk.request("ping", timeout_s=10)
            except Exception as exc:
                out["error"] = exc

        thread = threading.Thread(target=call)
        thread.start()
        return thread

    def answer(cmd: str, result: object, skip: str = "") -> str:
        assert wait_until(lambda: pending(cmd, skip) is not None, 10), f"no {cmd} request: {lk.requests.pending}"
        rid = pending(cmd, skip)
        assert rid is not None
        inject(lk, reply(rid, result))
        return rid

    try:
        first: dict[str, object] = {}
        caller = ping_in_thread(first)  # the connect-time handshake, then the ping
        answer("hello", hello)
        answer("ping", "pong")
        caller.join(10)
        assert first == {"result": "pong"}

        assert lk._port is not None
        lk._disconnected(lk._port, OSError(5, "unplugged"))  # as the reader does on EIO
        out: dict[str, object] = {}
        caller = ping_in_thread(out)
        assert wait_until(lambda: pending("hello") is not None or pending("ping") is not None, 10)
        first_hello = pending("hello")
        assert first_hello is not None, "the request went out before the handshake with the new board"
        inject(lk, b'{"event":"boot","protocol":1,"board":"nucleo-f401re","firmware":"0.1.0","reset":"power"}\n')
        answer("hello", hello, skip=first_hello)  # the banner failed the first hello; the retry is answered
        answer("ping", "pong")
        caller.join(10)
        assert out == {"result": "pong"}
        assert lk.stats.reconnects == 1 and lk.stats.resets == 1
    finally:
        lk.close()


def test_a_missing_serial_device_says_the_board_is_not_plugged_in(tmp_path: Path) -> None:
    # An unplugged Nucleo is the common field case; the message says so once, without errno noise.
    lk = Link(str(tmp_path / "ttyACM7"), settle_s=0)
    with pytest.raises(AdapterUnavailableError) as info:
        lk.open(handshake=False)
    text = str(info.value)
    assert "does not exist" in text and "not plugged in" in text
    assert "Errno" not in text
    assert "edge-agent bridge list" in text
