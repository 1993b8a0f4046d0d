"""One round of tool calls in the conversation: the calls a reply made, run, and their results sent back.

The reply's calls (native ones, or calls written as text) get an id each and go into the
conversation as the assistant's message, their arguments always a JSON object; each runs through
:class:`~edge_agent.agent.runner.ToolRunner` (repaired, checked, asked about, never repeated) and
its record's body (the result, or the error written for the model) goes back as a ``tool`` message,
cut to a size the mode can afford.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from edge_agent.agent import prompt as promptmod
from edge_agent.agent.autonomy import Autonomy
from edge_agent.agent.caller import ToolCaller
from edge_agent.agent.parsing import ParsedCall, parse_arguments
from edge_agent.agent.provider import Reply
from edge_agent.agent.records import OnTool, ToolRecord
from edge_agent.agent.turn import TurnResult

if TYPE_CHECKING:
    from edge_agent.agent.runner import ToolRunner

TOOL_RESULT_CHARS = {True: 3000, False: 12000}  # per tool result, compact / full mode


def make_runner(caller: ToolCaller, offered: Sequence[str], autonomy: Autonomy, *, boards: list[tuple[str, str]],
                max_calls: int, pool: ThreadPoolExecutor | None) -> ToolRunner:
    """A runner for one turn's calls (imports the schema checks: never on a response-cache hit)."""
    from edge_agent.agent.runner import ToolRunner

    return ToolRunner(caller, offered, autonomy, adapters={b: a for a, b in boards}, boards=[b for _, b in boards],
                      max_calls=max_calls, pool=pool)


def native_calls(reply: Reply) -> list[ParsedCall]:
    """The reply's native tool calls, their arguments parsed (an unreadable call keeps its error)."""
    calls = []
    for c in reply.tool_calls:
        args, error, note = parse_arguments(c.arguments)
        calls.append(ParsedCall(c.name, args, id=c.id, error=error if c.name else "the call has no tool name",
                                note=note))
    return calls


def args_text(arguments: Any) -> str:
    """The arguments of a call as the conversation carries it back to the server: always a JSON object.
    Servers decode the arguments of earlier calls (llama.cpp answers HTTP 500 when they do not parse),
    so a call whose arguments were not an object goes back as ``{}``; its tool result says what was wrong."""
    return json.dumps(arguments, ensure_ascii=False, default=str) if isinstance(arguments, dict) else "{}"


def result_text(name: str, body: Any, compact: bool) -> str:
    """A tool result as the ``tool`` message carries it: JSON, cut to the mode's size, fenced."""
    text = json.dumps(body, ensure_ascii=False, default=str)
    limit = TOOL_RESULT_CHARS[compact]
    if len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit} more characters cut]"
    return promptmod.fence(f"tool {name}", text)


def run_round(messages: list[dict[str, Any]], calls: list[ParsedCall], visible: str | None, runner: ToolRunner,
              result: TurnResult, on_tool: OnTool | None, *, compact: bool) -> list[ToolRecord]:
    """Run a reply's calls: the assistant message with them and a ``tool`` message per call go into
    `messages`, their records into `result` (returned too). `visible` is the reply's text to keep
    beside native calls (None for calls written as text: the calls are the message)."""
    result.rounds += 1
    for call in calls:
        call.id = call.id or f"call_{uuid.uuid4().hex[:12]}"
    messages.append({"role": "assistant", "content": visible,
                     "tool_calls": [{"id": c.id, "type": "function", "function": {
                         "name": c.name or "invalid", "arguments": args_text(c.arguments)}}
                         for c in calls]})
    records = runner.run(calls, on_tool)
    result.tool_calls += records
    if len(calls) > runner.max_calls:
        result.notes.append(f"{len(calls) - runner.max_calls} of {len(calls)} calls in one reply were not "
                            f"run ([agent] max_calls_per_reply = {runner.max_calls})")
    for call, rec in zip(calls, records, strict=True):
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": result_text(rec.name, rec.body(), compact)})
    return records
