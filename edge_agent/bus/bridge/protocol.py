"""Bridge protocol 1 (firmware_bridge/PROTOCOL.md), pure: encode requests, decode lines, map errors.

No I/O and no pyserial here, so the parser is testable on its own and importable without extras.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, field
from typing import Any

from edge_agent.errors import (
    BusBusyError,
    BusError,
    BusTimeoutError,
    I2CNackError,
    InvalidAddressError,
    ProtocolError,
)
from edge_agent.jsontypes import JsonObject, JsonValue

PROTOCOL_VERSION = 1
DEFAULT_BAUD = 115200
#: Request bytes before the terminator the firmware accepts (PROTOCOL.md section 1).
MAX_REQUEST_LINE = 512
#: Longest reply line including the terminator; a longer line from the wire is garbage.
MAX_REPLY_LINE = 1024
#: Bytes in one hex payload or read.
MAX_DATA = 128
MAX_ID_CHARS = 24

#: The commands protocol 0 (Revka's firmware) understands; the rest need protocol 1.
PROTOCOL0_COMMANDS = frozenset({"ping", "capabilities", "gpio_read", "gpio_write"})


class ErrorCode(enum.IntEnum):
    """Numbered firmware error codes (PROTOCOL.md section 6)."""

    MALFORMED = 1
    TOO_LONG = 2
    BAD_ID = 3
    UNKNOWN_CMD = 4
    MISSING_ARG = 5
    BAD_ARG = 6
    BAD_PIN = 7
    RESERVED = 8
    NACK = 9
    TIMEOUT = 10
    BUSY = 11
    UNSUPPORTED = 12
    INTERNAL = 13


@dataclass(frozen=True)
class CommandSpec:
    """A command's argument names and its default reply timeout."""

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    timeout_s: float = 1.0


#: Every protocol-1 command. Bus commands get more time: an I2C scan probes 112 addresses and a
#: stuck bus costs the firmware tens of milliseconds per poll limit.
COMMANDS: dict[str, CommandSpec] = {
    "ping": CommandSpec(),
    "capabilities": CommandSpec(),
    "hello": CommandSpec(timeout_s=2.0),
    "gpio_read": CommandSpec(("pin",)),
    "gpio_write": CommandSpec(("pin", "value")),
    "gpio_mode": CommandSpec(("pin", "mode"), ("pull",)),
    "adc_read": CommandSpec(("pin",)),
    "i2c_scan": CommandSpec(timeout_s=3.0),
    "i2c_read": CommandSpec(("addr", "len"), timeout_s=2.0),
    "i2c_write": CommandSpec(("addr", "data"), timeout_s=2.0),
    "i2c_write_read": CommandSpec(("addr", "data", "len"), timeout_s=2.0),
    "spi_transfer": CommandSpec(("data",), ("mode", "hz", "cs"), timeout_s=2.0),
}


class UnsupportedCommandError(ProtocolError):
    """The firmware does not implement this command (older protocol or another board)."""


class FirmwareResetError(ProtocolError):
    """The board restarted (boot banner) while the request was in flight; its effect is unknown."""


# --- frames -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One reply line: ``{"id", "ok", "result"[, "error", "code"]}``."""

    id: str | int | None
    ok: bool
    result: JsonValue
    error: str = ""
    code: int | None = None


@dataclass(frozen=True)
class Event:
    """An unsolicited line with an ``event`` key; ``boot`` is the only one protocol 1 defines."""

    event: str
    fields: JsonObject = field(default_factory=dict)

    @property
    def is_boot(self) -> bool:
        """True for the firmware's boot banner."""
        return self.event == "boot"


@dataclass(frozen=True)
class Garbage:
    """A line that is neither a reply nor an event (noise, a partial frame, another protocol)."""

    line: bytes
    reason: str


Frame = Reply | Event | Garbage


def encode_request(request_id: str | int, cmd: str, args: dict[str, Any] | None = None) -> bytes:
    """The wire bytes of one request, newline included.

    Raises:
        ProtocolError: the request would exceed the firmware's line limit or the id is unusable.
    """
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        raise ProtocolError(f"request id {request_id!r} must be a string or a non-negative integer")
    if isinstance(request_id, str) and not (1 <= len(request_id) <= MAX_ID_CHARS and request_id.isascii()):
        raise ProtocolError(f"request id {request_id!r} must be 1-{MAX_ID_CHARS} ASCII characters")
    frame: dict[str, Any] = {"id": request_id, "cmd": cmd}
    if args:
        frame["args"] = args
    line = json.dumps(frame, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    if len(line) > MAX_REQUEST_LINE:
        raise ProtocolError(
            f"{cmd} request is {len(line)} bytes; the firmware accepts at most {MAX_REQUEST_LINE} per line "
            f"(payloads are limited to {MAX_DATA} bytes)"
        )
    return line + b"\n"


def decode_line(line: bytes) -> Frame:
    """Classify one received line (terminator stripped). Never raises: bad input is ``Garbage``."""
    text_bytes = line.strip(b"\r\n \t")
    if len(text_bytes) >= MAX_REPLY_LINE:
        return Garbage(line, "overlong")
    try:
        obj = json.loads(text_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Garbage(line, "not JSON")
    except RecursionError:
        # A line of a thousand '[' fits the length cap but nests deeper than the parser recurses.
        return Garbage(line, "nested too deeply")
    if not isinstance(obj, dict):
        return Garbage(line, "not a JSON object")
    if "event" in obj:
        if not isinstance(obj["event"], str):
            return Garbage(line, "event is not a string")
        return Event(obj["event"], {k: v for k, v in obj.items() if k != "event"})
    if "id" not in obj or not isinstance(obj.get("ok"), bool):
        return Garbage(line, "not a reply (needs id and boolean ok)")
    rid = obj["id"]
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, str | int)):
        return Garbage(line, "id is neither string, integer nor null")
    code = obj.get("code")
    error = obj.get("error") or ""
    if not isinstance(error, str):
        error = str(error)
    if not obj["ok"] and code is None and error.startswith("Unknown command"):
        code = ErrorCode.UNKNOWN_CMD  # protocol 0 has no codes but this text is fixed
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        return Garbage(line, "code is not an integer")
    return Reply(rid, obj["ok"], obj.get("result", ""), error, code)


#: How a protocol-1 frame begins on the wire: an object whose first key is "id" or "event".
_FRAME_START = re.compile(rb'\{\s*"(?:id|event)"\s*:')
_FRAGMENT_ID = re.compile(rb'\s*\{\s*"id"\s*:\s*"?([0-9A-Za-z_.-]{1,%d})"?\s*[,}]' % MAX_ID_CHARS)


def find_frame_start(line: bytes) -> int | None:
    """Where a well-formed frame begins inside a garbled ``line`` (never at 0), or None.

    A reply cut off without its newline (a reset or a dropped byte mid-line) runs into the next
    frame on the same line; the first position from which the rest decodes as a reply or an event
    is where the next frame starts.
    """
    for m in _FRAME_START.finditer(line, 1):
        if not isinstance(decode_line(line[m.start():]), Garbage):
            return m.start()
    return None


def fragment_id(fragment: bytes) -> str | None:
    """The request id a cut-off reply fragment names (``{"id":"7",...``), if it got that far."""
    m = _FRAGMENT_ID.match(fragment)
    return m.group(1).decode("ascii") if m else None


# --- errors -------------------------------------------------------------------------------------


def error_for(reply: Reply, *, adapter: str, cmd: str, address: int | None = None) -> BusError:
    """The edge_agent error for an ``ok: false`` reply, chosen by its code (never by its text)."""
    where = f"{adapter}: {cmd}"
    text = reply.error or "firmware reported an error without a message"
    code = reply.code
    if code == ErrorCode.NACK:
        return I2CNackError(f"{where}: {text}", adapter=adapter, address=address)
    if code == ErrorCode.TIMEOUT:
        return BusTimeoutError(f"{where}: {text}", adapter=adapter, address=address)
    if code == ErrorCode.BUSY:
        return BusBusyError(f"{where}: {text}", adapter=adapter, address=address)
    if code in (ErrorCode.BAD_ARG, ErrorCode.BAD_PIN, ErrorCode.RESERVED):
        return InvalidAddressError(f"{where}: {text}", adapter=adapter, address=address)
    if code in (ErrorCode.UNKNOWN_CMD, ErrorCode.UNSUPPORTED):
        return UnsupportedCommandError(
            f"{where}: the firmware does not support {cmd!r} ({text}); flash the current firmware_bridge build "
            "(docs/firmware.md)", adapter=adapter)
    if code in (ErrorCode.MALFORMED, ErrorCode.TOO_LONG, ErrorCode.BAD_ID, ErrorCode.MISSING_ARG):
        return ProtocolError(f"{where}: firmware rejected the request: {text} (code {int(code)})", adapter=adapter)
    return BusError(f"{where}: firmware error: {text} (code {code})", adapter=adapter, address=address)


# --- payloads -----------------------------------------------------------------------------------


def to_hex(data: bytes) -> str:
    """Hex string for a byte payload (lower case, as the firmware replies)."""
    return data.hex()


def from_hex(text: Any, *, adapter: str = "", cmd: str = "") -> bytes:
    """Bytes from a hex result; ProtocolError if the firmware sent something else."""
    if not isinstance(text, str):
        raise ProtocolError(f"{adapter}: {cmd} result {text!r} is not a hex string", adapter=adapter)
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ProtocolError(f"{adapter}: {cmd} result {text!r} is not valid hex", adapter=adapter) from None


def parse_capabilities(result: Any) -> dict[str, Any]:
    """The capabilities object: protocol 0/1 send it as a string holding JSON; accept an object too."""
    if isinstance(result, dict):
        return result
    if isinstance(result, str):
        try:
            obj = json.loads(result)
        except ValueError:
            raise ProtocolError(f"capabilities result is not JSON: {result[:80]!r}") from None
        if isinstance(obj, dict):
            return obj
    raise ProtocolError(f"capabilities result {result!r} is not a JSON object")


def check_args(cmd: str, args: dict[str, Any] | None) -> None:
    """Reject an unknown command or missing/unknown argument names before anything is sent."""
    spec = COMMANDS.get(cmd)
    if spec is None:
        raise UnsupportedCommandError(f"unknown bridge command {cmd!r}; known: {', '.join(sorted(COMMANDS))}")
    given = set(args or {})
    missing = [a for a in spec.required if a not in given]
    unknown = sorted(given - set(spec.required) - set(spec.optional))
    if missing or unknown:
        raise ProtocolError(
            f"{cmd}: missing argument(s) {missing} / unknown argument(s) {unknown}; "
            f"takes {list(spec.required)} and optionally {list(spec.optional)}"
        )
