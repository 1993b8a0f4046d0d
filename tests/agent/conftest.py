"""A scripted OpenAI-compatible chat-completions server on loopback: the only fake in the agent tests.

Each request takes the next step of the script. A step is a reply (text, reasoning, tool calls),
an HTTP error, a hang longer than the client's timeout, or a body that is not JSON; a callable step
gets the request body and returns one of those. Replies go out as JSON or, when the request asks
for ``stream``, as server-sent events with content and tool-call deltas the way servers stream them.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai", reason="the openai SDK (extra 'agent') is not installed")


@dataclass
class Step:
    kind: str = "reply"  # reply | status | hang | garbage | cut
    no_stream: bool = False  # answer a streamed request with a plain JSON completion
    content: str = ""
    reasoning: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200
    seconds: float = 0.0
    usage: dict[str, int] | None = None
    message: str = ""  # the error message of a status step


def say(content: str, reasoning: str = "", usage: dict[str, int] | None = None) -> Step:
    return Step(content=content, reasoning=reasoning, usage=usage)


def call(*calls: tuple[str, Any], content: str = "") -> Step:
    """Native tool calls: (name, arguments) where arguments is a dict or raw argument text."""
    return Step(content=content, tool_calls=list(calls))


def http_error(status: int, message: str = "") -> Step:
    return Step(kind="status", status=status, message=message)


def hang(seconds: float) -> Step:
    return Step(kind="hang", seconds=seconds)


def garbage() -> Step:
    return Step(kind="garbage")


def cut() -> Step:
    return Step(kind="cut")


class ScriptedModel:
    """The server; `script` is consumed in order, `requests` holds every request received."""

    def __init__(self) -> None:
        self.script: list[Step | Callable[[dict[str, Any]], Step]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        # The one-token request a provider's tool-call mode is probed with is answered apart from the
        # script: accepted, or refused the way llama.cpp's server refuses `tools` without --jinja.
        self.probes: list[dict[str, Any]] = []
        self.refuse_tools = False
        self.refuse_tool_choice = False  # answer a request with `tool_choice` as a server without it does
        self.refuse_response_format = False  # answer a request with a JSON-schema `response_format` so
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if body.get("max_tokens") == 1 and [t["function"]["name"] for t in body.get("tools", [])] == ["ping"]:
                    model.probes.append(body)
                    model._answer(self, Step(kind="status", status=500, message="tools param requires --jinja flag")
                                  if model.refuse_tools else Step(content="p"), False)
                    return
                if model.refuse_tools and body.get("tools"):
                    model.requests.append(body)
                    model._answer(self, Step(kind="status", status=500, message="tools param requires --jinja flag"),
                                  False)
                    return
                model.requests.append(body)
                model.headers.append({k.lower(): v for k, v in self.headers.items()})
                if model.refuse_response_format and "response_format" in body:
                    model._answer(self, Step(kind="status", status=400,
                                             message="response_format json_schema is not supported"), False)
                    return
                if model.refuse_tool_choice and "tool_choice" in body:
                    model._answer(self, Step(kind="status", status=400, message="tool_choice is not supported"), False)
                    return
                if (bad := _unparsable_history_arguments(body)) is not None:
                    model._answer(self, Step(kind="status", status=500, message=bad), False)
                    return
                model.request_times.append(time.time())
                step: Any = model.script.pop(0) if model.script else Step(kind="status", status=599)
                if callable(step):
                    step = step(body)
                model._answer(self, step, bool(body.get("stream")))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str) -> None:
        h.send_response(status)
        h.send_header("content-type", ctype)
        h.send_header("content-length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _answer(self, h: BaseHTTPRequestHandler, step: Step, stream: bool) -> None:
        if step.kind == "status":
            err = {"error": {"code": step.status, "message": step.message or f"scripted failure {step.status}",
                             "type": "server_error"}}
            self._send(h, step.status, json.dumps(err).encode(), "application/json")
            return
        if step.kind == "hang":
            time.sleep(step.seconds)
            with_body = json.dumps({"error": {"message": "too late"}}).encode()
            try:
                self._send(h, 500, with_body, "application/json")
            except OSError:
                pass
            return
        if step.kind == "cut":  # a stream that stops half way: the connection closes mid-reply
            part = b'data: {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", ' \
                   b'"choices": [{"index": 0, "delta": {"content": "Half an ans"}, "finish_reason": null}]}\n\n'
            h.send_response(200)
            h.send_header("content-type", "text/event-stream")
            h.send_header("content-length", str(len(part) + 500))
            h.end_headers()
            h.wfile.write(part)
            h.wfile.flush()
            h.close_connection = True
            return
        if step.kind == "garbage":
            self._send(h, 200, b"<html>not a completion", "application/json")
            return
        calls = [{"id": f"call_{i}", "type": "function",
                  "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                 for i, (name, args) in enumerate(step.tool_calls)]
        usage = step.usage or {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        if not stream or step.no_stream:
            msg: dict[str, Any] = {"role": "assistant", "content": step.content or None}
            if calls:
                msg["tool_calls"] = calls
            if step.reasoning:
                msg["reasoning_content"] = step.reasoning
            body = {"id": "cmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
                    "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
                    "usage": usage}
            self._send(h, 200, json.dumps(body).encode(), "application/json")
            return
        events: list[dict[str, Any]] = []

        def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
            events.append({"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        chunk({"role": "assistant", "content": ""})
        if step.reasoning:
            chunk({"reasoning_content": step.reasoning})
        text = step.content
        for i in range(0, len(text), 5):
            chunk({"content": text[i:i + 5]})
        for i, c in enumerate(calls):
            chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                   "function": {"name": c["function"]["name"], "arguments": ""}}]})
            args = c["function"]["arguments"]
            half = len(args) // 2
            for piece in (args[:half], args[half:]):
                chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        chunk({}, "tool_calls" if calls else "stop")
        events.append({"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "scripted",
                       "choices": [], "usage": usage})
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self._send(h, 200, data.encode(), "text/event-stream")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _unparsable_history_arguments(body: dict[str, Any]) -> str | None:
    """llama.cpp's server decodes the arguments of every earlier tool call in the request before it renders
    the prompt, and answers HTTP 500 when one is not JSON: the same check, the same message."""
    for m in body.get("messages", []):
        for c in m.get("tool_calls") or []:
            args = (c.get("function") or {}).get("arguments")
            if isinstance(args, str):
                try:
                    json.loads(args)
                except ValueError as exc:
                    return f"Failed to parse tool call arguments as JSON: {exc}"
    return None


def tool_body(content: str) -> Any:
    """The JSON of a tool message, out of its ``<data source="tool NAME">`` fence."""
    m = re.fullmatch(r'<data source="tool [a-z0-9_]+">\n(.*)\n</data>', content, re.DOTALL)
    assert m, f"a tool result is not fenced as data: {content[:80]!r}"
    return json.loads(m.group(1))


def sim_writes(agent: Any) -> list[tuple[str, int]]:
    """The (pin, value) GPIO writes the simulated NUCLEO-F401RE saw during an agent's turns."""
    from edge_agent.bus.sim.world import GPIOWrite

    if agent.caller.runtime is None:  # no tool ran, so no runtime was opened
        return []
    log = agent.caller.runtime.adapters["nucleo-f401re"].adapter.log
    return [(t.pin, t.value) for t in log if isinstance(t, GPIOWrite)]


def type_lines(monkeypatch: Any, *typed: str) -> list[str]:
    """Feed `typed` to every input prompt (chat and approval) in order, then end with EOF (Ctrl-D).
    Returns the list the prompts shown are appended to."""
    lines = iter(typed)
    prompts: list[str] = []

    def read(prompt: str = "") -> str:
        prompts.append(prompt)
        line = next(lines, None)
        if line is None:
            raise EOFError
        return line

    monkeypatch.setattr("builtins.input", read)
    return prompts


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def write_config(path: Path, model: ScriptedModel, extra: str = "", *, fallbacks: list[str] | None = None,
                 retries: int = 0, compact: bool = False, cache: bool | None = None,
                 autonomy: str | None = "full", tool_choice: str | None = "all") -> Path:
    """A config for the scripted model; ``cache`` None leaves the response cache at its default.

    Most tests drive the loop itself, so they run with ``[autonomy] level = "full"`` and every tool
    offered; None leaves either at its default (supervised, tools chosen per question).
    """
    fb = json.dumps(fallbacks or [])
    agent_extra = "" if tool_choice is None else f'tool_choice = "{tool_choice}"\n'
    autonomy_section = "" if autonomy is None else f'[autonomy]\nlevel = "{autonomy}"\n'
    path.write_text(
        f'default_provider = "custom:{model.url}"\ndefault_model = "test-model"\nprovider_timeout_secs = 5\n'
        f"{extra}\n{autonomy_section}[agent]\ncompact_context = {str(compact).lower()}\n{agent_extra}"
        + ("" if cache is None else f"[memory]\nresponse_cache_enabled = {str(cache).lower()}\n") +
        f"[reliability]\nprovider_retries = {retries}\nprovider_backoff_ms = 1\nfallback_providers = {fb}\n")
    return path


@pytest.fixture
def config(tmp_path: Path, model: ScriptedModel) -> Path:
    return write_config(tmp_path / "edge-agent.toml", model)


@pytest.fixture
def steps() -> Any:
    """The script helpers: say, call, http_error, hang, garbage, write_config, ScriptedModel."""
    import types

    return types.SimpleNamespace(say=say, call=call, http_error=http_error, hang=hang, garbage=garbage, cut=cut,
                                 write_config=write_config, ScriptedModel=ScriptedModel)


def kept_store(agent: Any) -> Any:
    """The memory store an agent without a daemon opened in this process (kept open until it closes)."""
    with agent.caller.context.store(None) as store:
        return store
