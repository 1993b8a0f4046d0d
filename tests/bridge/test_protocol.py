"""Unit tests of the pure host-side protocol module (no I/O)."""

from __future__ import annotations

import json

import pytest

from edge_agent.bus.bridge.protocol import (
    MAX_DATA,
    MAX_REQUEST_LINE,
    ErrorCode,
    Event,
    Garbage,
    Reply,
    UnsupportedCommandError,
    check_args,
    decode_line,
    encode_request,
    error_for,
    from_hex,
    parse_capabilities,
    to_hex,
)
from edge_agent.errors import BusError, I2CNackError, ProtocolError


def test_request_is_one_compact_json_line_with_id_cmd_args() -> None:
    line = encode_request("12", "gpio_write", {"pin": "PA5", "value": 1})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"id": "12", "cmd": "gpio_write", "args": {"pin": "PA5", "value": 1}}


def test_request_without_args_omits_the_args_key() -> None:
    assert json.loads(encode_request(3, "ping")) == {"id": 3, "cmd": "ping"}


def test_request_longer_than_the_firmware_line_limit_is_refused_before_sending() -> None:
    with pytest.raises(ProtocolError):
        encode_request("1", "spi_transfer", {"data": "00" * (MAX_REQUEST_LINE // 2)})


def test_largest_payload_fits_the_line_limit() -> None:
    line = encode_request("123456789012", "i2c_write_read", {"addr": 0x50, "data": "ff" * MAX_DATA, "len": 128})
    assert len(line) - 1 <= MAX_REQUEST_LINE


@pytest.mark.parametrize("bad_id", ["", "x" * 25, "é", True, 1.5, None])
def test_unusable_request_ids_are_refused(bad_id: object) -> None:
    with pytest.raises(ProtocolError):
        encode_request(bad_id, "ping")  # type: ignore[arg-type]


def test_reply_is_decoded_with_its_fields() -> None:
    frame = decode_line(b'{"id":"4","ok":false,"result":"","error":"no ACK","code":9}\r')
    assert frame == Reply("4", False, "", "no ACK", 9)


def test_boot_banner_is_an_event_not_a_reply() -> None:
    frame = decode_line(b'{"event":"boot","protocol":1,"reset":"pin"}')
    assert isinstance(frame, Event) and frame.is_boot and frame.fields["reset"] == "pin"


@pytest.mark.parametrize(
    "line",
    [b"\x00\xff\xfe", b"garbage", b"[1,2]", b'{"id":"1"}', b'{"id":"1","ok":"yes"}', b'{"id":true,"ok":true}',
     b'{"id":"1","ok":false,"code":"9"}', b'{"event":5}', b'{"id":"1","ok":true', b"x" * 2000],
)
def test_lines_that_are_not_replies_are_garbage_not_exceptions(line: bytes) -> None:
    assert isinstance(decode_line(line), Garbage)


def test_protocol0_unknown_command_text_gets_the_unknown_command_code() -> None:
    frame = decode_line(b'{"id":"0","ok":false,"result":"","error":"Unknown command"}')
    assert isinstance(frame, Reply) and frame.code == ErrorCode.UNKNOWN_CMD
    assert isinstance(error_for(frame, adapter="a", cmd="hello"), UnsupportedCommandError)


def test_nack_error_carries_adapter_and_address() -> None:
    err = error_for(Reply("1", False, "", "no ACK", 9), adapter="bridge://x", cmd="i2c_read", address=0x42)
    assert isinstance(err, I2CNackError) and err.address == 0x42 and err.adapter == "bridge://x"


def test_unknown_future_error_code_is_a_plain_bus_error() -> None:
    err = error_for(Reply("1", False, "", "new thing", 77), adapter="a", cmd="x")
    assert type(err) is BusError


def test_hex_round_trip_and_bad_hex_is_a_protocol_error() -> None:
    assert from_hex(to_hex(b"\x00\xab")) == b"\x00\xab"
    with pytest.raises(ProtocolError):
        from_hex("abc")
    with pytest.raises(ProtocolError):
        from_hex(12)


def test_capabilities_accepts_protocol0_string_and_plain_object() -> None:
    assert parse_capabilities('{"gpio":[13],"led_pin":13}') == {"gpio": [13], "led_pin": 13}
    assert parse_capabilities({"gpio": []}) == {"gpio": []}
    with pytest.raises(ProtocolError):
        parse_capabilities("pong")


def test_check_args_names_missing_and_unknown_arguments() -> None:
    check_args("gpio_write", {"pin": 13, "value": 1})
    with pytest.raises(ProtocolError):
        check_args("gpio_write", {"pin": 13})
    with pytest.raises(ProtocolError):
        check_args("gpio_write", {"pin": 13, "value": 1, "vlaue": 1})
    with pytest.raises(UnsupportedCommandError):
        check_args("reboot", None)


def test_protocol_module_imports_and_bridge_urls_fail_clearly_without_pyserial() -> None:
    """Without the `bridge` extra: the pure protocol still works; opening a bridge is BackendUnavailable."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['serial'] = None\n"
        "from edge_agent.bus.bridge.protocol import encode_request\n"
        "assert encode_request('1', 'ping') == b'{\"id\":\"1\",\"cmd\":\"ping\"}\\n'\n"
        "from edge_agent.bus import open_adapter\n"
        "from edge_agent.errors import BackendUnavailable\n"
        "try:\n"
        "    open_adapter('bridge://loop://')\n"
        "except BackendUnavailable as exc:\n"
        "    assert 'edge-agent[bridge]' in str(exc)\n"
        "else:\n"
        "    raise SystemExit('no BackendUnavailable')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


def test_decode_line_never_raises_on_arbitrary_bytes() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=10)
    json_values = st.recursive(
        scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=8)

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.binary(max_size=1500), st.text(max_size=300).map(str.encode),
                     json_values.map(lambda o: json.dumps(o).encode())))
    def check(line: bytes) -> None:
        assert isinstance(decode_line(line), Reply | Event | Garbage)

    check()
