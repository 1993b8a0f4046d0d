"""Bounded newline-delimited JSON-RPC over stdin/stdout (standard library only).

MCP over stdio is one JSON message per line. A line is read with a bound: past ``MAX_LINE_BYTES``
(the same limit the HTTP transport puts on a request body) the rest of the line is read and dropped
in chunks, so memory stays flat however long it is, and the client gets a JSON-RPC error carrying the
request's id when the first bytes name one, so it is not left waiting.

Used by both ``edge-agent mcp`` paths: the in-process SDK server and the relay to a running daemon.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from typing import BinaryIO

#: Largest message line accepted, equal to the HTTP transport's request body limit (4 MiB).
MAX_LINE_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
INVALID_REQUEST = -32600


@dataclass
class TooLong:
    """A line over the limit was dropped; ``request_id`` is its id when the first bytes carried one."""

    size: int
    request_id: int | str | None


def _id_from(prefix: bytes) -> int | str | None:
    match = _ID.search(prefix[:4096])
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


class LineReader:
    """Reads lines of at most ``limit`` bytes from a binary stream; ``None`` at end of input."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> None:
        self.stream, self.limit = stream, limit

    def read(self) -> bytes | TooLong | None:
        line = self.stream.readline(self.limit + 1)
        if not line:
            return None
        if len(line) <= self.limit or line.endswith(b"\n") and len(line) == self.limit + 1:
            return line
        size, prefix = len(line), line[:4096]
        while not line.endswith(b"\n"):
            line = self.stream.readline(_CHUNK)
            if not line:
                break
            size += len(line)
        return TooLong(size, _id_from(prefix))


def too_long_error(dropped: TooLong, limit: int = MAX_LINE_BYTES) -> bytes:
    """The JSON-RPC error line answering a dropped over-long message."""
    message = (f"message refused: its line is {dropped.size} bytes, over the {limit}-byte limit for one "
               "message; send smaller arguments (e.g. fewer bytes per write, shorter text)")
    body = {"jsonrpc": "2.0", "id": dropped.request_id, "error": {"code": INVALID_REQUEST, "message": message}}
    return json.dumps(body).encode() + b"\n"


class LineWriter:
    """Writes whole lines to a binary stream, one writer at a time."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def write(self, line: bytes) -> None:
        with self._lock:
            self.stream.write(line if line.endswith(b"\n") else line + b"\n")
            self.stream.flush()


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private binary streams on the process's stdin/stdout; fd 0 then reads /dev/null and fd 1 goes to stderr.

    Stray output of a library (a print, a native log line) then lands on stderr instead of corrupting
    the message stream.
    """
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)
    os.dup2(2, 1)
    return os.fdopen(wire_in, "rb", buffering=_CHUNK), os.fdopen(wire_out, "wb", buffering=0)
