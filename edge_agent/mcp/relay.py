"""`edge-agent mcp` while a daemon runs: relay stdio MCP messages to the daemon's socket.

A desktop client spawns ``edge-agent mcp`` and speaks MCP on its stdin/stdout. When a daemon serves
the state directory, the hardware and the databases are its own, so each message line is POSTed
to the daemon's ``/mcp`` endpoint (stateless streamable HTTP, JSON responses) and the answer is
written back as one line. Messages are relayed concurrently, so a long tool call does not hold up
a ping. Standard library only: no SDK, bus or memory code in this process.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from edge_agent.hub.client import HubClient, HubError, _last_sse_data
from edge_agent.mcp.stdio import LineReader, LineWriter, TooLong, claim_stdio, too_long_error

log = logging.getLogger(__name__)

INTERNAL_ERROR = -32603
MAX_IN_FLIGHT = 8


def _request_id(line: bytes) -> Any:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message.get("id") if isinstance(message, dict) else None


def _forward(client: HubClient, line: bytes, writer: LineWriter) -> None:
    try:
        status, headers, payload = client.request("POST", "/mcp", line, timeout=None)
    except HubError as exc:
        request_id = _request_id(line)
        if request_id is not None:  # a request: answer it, or the client waits forever
            writer.write(json.dumps({"jsonrpc": "2.0", "id": request_id,
                                     "error": {"code": INTERNAL_ERROR, "message": str(exc)}}).encode())
        else:
            log.error("%s", exc)
        return
    if headers.get("content-type", "").startswith("text/event-stream"):
        payload = _last_sse_data(payload)
    payload = payload.strip()
    if status == 202 or not payload:
        return  # a notification or a response the client sent
    writer.write(payload)


def relay_stdio(client: HubClient) -> int:
    """Relay until the client closes stdin; returns the exit code."""
    wire_in, wire_out = claim_stdio()
    reader, writer = LineReader(wire_in), LineWriter(wire_out)
    with ThreadPoolExecutor(max_workers=MAX_IN_FLIGHT, thread_name_prefix="mcp-relay") as pool:
        while True:
            item = reader.read()
            if item is None:
                break
            if isinstance(item, TooLong):
                log.warning("refused a %d-byte stdio message", item.size)
                writer.write(too_long_error(item))
                continue
            if item.strip():
                pool.submit(_forward, client, item, writer)
    return 0
