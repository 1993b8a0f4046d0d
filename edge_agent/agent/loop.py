"""One agent turn: engage memory, build the prompt, call the model, run its tools, answer, reflect.

1. engage memory with the message (decay, minimum relevance, token budget) and keep its source refs;
2. hardware context: pin aliases and datasheet chunks for the message, scoped to the boards;
3. a stable system prompt, then the user message with both contexts, the date and the message;
4. the model is offered the tools; each call it makes runs through the tool caller and its result
   (or the error, written for the model) goes back as a ``tool`` message; repeat until it answers
   without calls or ``max_tool_iterations`` rounds ran;
5. a turn that called no tool is answered from, or stored in, the response cache;
6. the exchange is reflected into memory as a conversation capture with the source refs, and kept
   in the session history.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from edge_agent.agent import prompt as promptmod
from edge_agent.agent.caller import ToolCaller
from edge_agent.agent.parsing import ParsedCall, StreamFilter, parse_arguments, split_reasoning, text_tool_calls
from edge_agent.agent.provider import ProviderChain, Reply
from edge_agent.agent.state import AgentState
from edge_agent.agent.tools import COMPACT_TOOLS, check_arguments, openai_tool_specs, valid_call
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 10
NUDGE = ("You wrote only reasoning and no answer. Reply to my message now in plain text, "
         "or call one of the tools.")
TOOL_RESULT_CHARS = {True: 3000, False: 12000}  # per tool result, compact / full mode
CALL_FORMAT = '{"name": "<tool name>", "arguments": {<argument>: <value>, ...}}'


@dataclass
class ToolRecord:
    name: str
    arguments: Any
    result: Any = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.error is None:
            out["result"] = self.result
        else:
            out["error"] = self.error
        return out


@dataclass
class TurnResult:
    response: str
    tool_calls: list[ToolRecord] = field(default_factory=list)
    cached: bool = False
    provider: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    limit_reached: bool = False
    source_krefs: list[str] = field(default_factory=list)
    prompt_chars: int = 0
    answered: bool = True  # False when the model gave only reasoning: nothing to cache or remember

    def as_dict(self) -> dict[str, Any]:
        return {"response": self.response, "tool_calls": [t.as_dict() for t in self.tool_calls],
                "cached": self.cached, "provider": self.provider, "usage": self.usage,
                "tool_rounds": self.rounds, "limit_reached": self.limit_reached, "source_krefs": self.source_krefs}


@dataclass
class Context:
    """What a turn knows before the model is asked."""

    prompt: promptmod.Prompt
    source_krefs: list[str]
    history: list[dict[str, str]]


class Agent:
    """The turn loop over one configuration, hardware context, memory, tool caller and providers.

    ``hardware`` gives the hardware context (``context`` and ``offline``, see
    :mod:`edge_agent.agent.sources`); ``memory`` engages, reflects and holds the response cache: the
    memory store itself, or the daemon's through its socket. Either may be None (left out).
    """

    def __init__(self, settings: Settings, *, hardware: Any, memory: Any, caller: ToolCaller, chain: ProviderChain,
                 state: AgentState | None = None) -> None:
        self.settings = settings
        self.hardware, self.memory, self.caller, self.chain, self.state = hardware, memory, caller, chain, state
        self.compact = settings.agent.compact_context
        boards = settings.peripherals.boards if settings.peripherals.enabled else []
        self.boards = [(b.adapter_name, b.board) for b in boards]
        self.system = promptmod.system_prompt(self.boards)
        self.tools = openai_tool_specs(COMPACT_TOOLS if self.compact else None)
        self.offered = {t["function"]["name"] for t in self.tools}
        self.max_rounds = settings.agent.max_tool_iterations or DEFAULT_ITERATIONS
        self._pool: ThreadPoolExecutor | None = None

    # --- context ---------------------------------------------------------------------------------

    def _board_ids(self, board: str | None) -> list[str]:
        if board:
            return [board.strip().lower()]
        return list(dict.fromkeys(b for _, b in self.boards))

    def memory_context(self, message: str) -> tuple[str, list[str]]:
        """Engage memory with the message: (context block, source refs); empty when memory is off."""
        if self.memory is None:
            return "", []
        s = self.settings
        # This message's own earlier exchanges stay out: asked again, it must build the same prompt.
        exclude = self.state.exchanges_of(message) if self.state is not None else []
        try:
            found = self.memory.engage(message, limit=s.kumiho.memory_retrieval_limit,
                                       min_score=s.memory.min_relevance_score, exclude_ids=exclude)
        except EdgeAgentError as exc:
            log.warning("memory context left out: %s", exc)
            return "", []
        return str(found.get("context") or ""), list(found.get("source_refs") or [])

    def hardware_context(self, message: str, board: str | None = None) -> str:
        """Pin aliases and datasheet chunks for the message, scoped to the boards."""
        boards = self._board_ids(board)
        if self.hardware is None or not boards:
            return ""
        return str(self.hardware.context(message, boards))

    def build(self, message: str, *, session: str | None = None, board: str | None = None) -> Context:
        history = self.state.history(session, self.settings.agent.max_history_messages) \
            if self.state is not None and session else []
        memory, krefs = self.memory_context(message)
        hardware = self.hardware_context(message, board)
        if self.compact:  # the oldest history goes first when the request would not fit
            while history and sum(len(m["content"]) for m in history) > promptmod.COMPACT_PROMPT_CHARS // 2:
                history = history[2:]
        prompt = promptmod.build_prompt(self.system, memory, hardware, message, compact=self.compact,
                                        history_chars=sum(len(m["content"]) for m in history) if self.compact else 0)
        return Context(prompt, krefs, history)

    # --- the turn --------------------------------------------------------------------------------

    def _cache(self) -> Any:
        if self.memory is None:
            return None
        try:
            return self.memory.response_cache
        except EdgeAgentError as exc:
            log.warning("response cache not used: %s", exc)
            return None

    def _cache_key_user(self, ctx: Context) -> str:
        if not ctx.history:
            return ctx.prompt.user
        return json.dumps(ctx.history, ensure_ascii=False) + "\n" + ctx.prompt.user

    def turn(self, message: str, *, session: str | None = None, board: str | None = None,
             on_token: Callable[[str], None] | None = None,
             on_tool: Callable[[str, ToolRecord], None] | None = None) -> TurnResult:
        """Answer one message (ProviderError when no provider answers)."""
        ctx = self.build(message, session=session, board=board)
        cache = self._cache()
        key_user = self._cache_key_user(ctx)
        if cache is not None:
            hit = cache.get(self.chain.model, ctx.prompt.system, key_user)
            if hit is not None:
                if on_token is not None:
                    on_token(hit)
                result = TurnResult(hit, cached=True, provider="cache", source_krefs=ctx.source_krefs,
                                    prompt_chars=ctx.prompt.chars)
                self._finish(message, result, session)
                return result
        result = self._converse(ctx, on_token, on_tool)
        result.source_krefs, result.prompt_chars = ctx.source_krefs, ctx.prompt.chars
        if cache is not None and not result.tool_calls and not result.limit_reached and result.answered:
            try:
                cache.put(self.chain.model, ctx.prompt.system, key_user, result.response,
                          tokens=result.usage.get("completion_tokens"))
            except EdgeAgentError as exc:
                log.warning("answer not cached: %s", exc)
        self._finish(message, result, session)
        return result

    def _converse(self, ctx: Context, on_token: Callable[[str], None] | None,
                  on_tool: Callable[[str, ToolRecord], None] | None) -> TurnResult:
        messages: list[dict[str, Any]] = [{"role": "system", "content": ctx.prompt.system}, *ctx.history,
                                          {"role": "user", "content": ctx.prompt.user}]
        result = TurnResult("")
        nudged = False
        while True:
            shown = StreamFilter() if on_token is not None else None
            reply = self.chain.complete(messages, self.tools, on_token=_filtered(shown, on_token),
                                        on_retry=_restart(shown, on_token))
            _add_usage(result.usage, reply.usage)
            result.provider = reply.provider
            visible, _reasoning = split_reasoning(reply.content)
            calls = _native_calls(reply) or text_tool_calls(visible)
            if not calls:
                if not visible and not nudged:  # only reasoning: ask once more for the answer
                    nudged = True
                    messages += [{"role": "assistant", "content": ""}, {"role": "user", "content": NUDGE}]
                    continue
                result.answered = bool(visible)
                result.response = visible or "The model gave no answer (it returned only reasoning)."
                if shown is not None and on_token is not None and (rest := shown.finish(result.response)):
                    on_token(rest)
                return result
            if result.rounds >= self.max_rounds:
                result.limit_reached = True
                result.response = (f"Stopped: the model still wanted to call tools after {result.rounds} rounds "
                                   f"(max_tool_iterations = {self.max_rounds}). Ask again more specifically, "
                                   "or raise [agent] max_tool_iterations.")
                if on_token is not None:
                    on_token(result.response)
                return result
            result.rounds += 1
            for call in calls:
                call.id = call.id or f"call_{uuid.uuid4().hex[:12]}"
            messages.append({"role": "assistant", "content": visible if reply.tool_calls else None,
                             "tool_calls": [{"id": c.id, "type": "function", "function": {
                                 "name": c.name or "invalid", "arguments": _args_text(c.arguments)}}
                                 for c in calls]})
            records = self._run_calls(calls, on_tool)
            result.tool_calls += records
            for call, rec in zip(calls, records, strict=True):
                body = {"error": rec.error} if rec.error is not None else rec.result
                messages.append({"role": "tool", "tool_call_id": call.id, "content": self._result_text(body)})

    def _result_text(self, body: Any) -> str:
        text = json.dumps(body, ensure_ascii=False, default=str)
        limit = TOOL_RESULT_CHARS[self.compact]
        if len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut]"
        return text

    def _run_calls(self, calls: list[ParsedCall],
                   on_tool: Callable[[str, ToolRecord], None] | None) -> list[ToolRecord]:
        if self.settings.agent.parallel_tools and len(calls) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="edge-agent-tool")
            return list(self._pool.map(lambda c: self._run_one(c, on_tool), calls))
        return [self._run_one(c, on_tool) for c in calls]

    def _run_one(self, call: ParsedCall, on_tool: Callable[[str, ToolRecord], None] | None) -> ToolRecord:
        rec = ToolRecord(call.name, call.arguments)
        if on_tool is not None:
            on_tool("start", rec)
        if call.error:
            example = valid_call(call.name) if call.name in self.offered else CALL_FORMAT
            rec.error = f"{call.error}. A valid call looks like {example}"
        elif call.name not in self.offered:
            rec.error = (f"there is no tool {call.name!r}; the tools are {', '.join(sorted(self.offered))}. "
                         f"A valid call looks like {CALL_FORMAT}")
        else:
            try:
                check_arguments(call.name, call.arguments)  # says what a valid call looks like
                rec.result = self.caller.call_tool(call.name, call.arguments)
            except EdgeAgentError as exc:
                rec.error = str(exc)
            except Exception as exc:  # a bug in a tool must not end the turn: the model is told, the log has it
                log.exception("tool %s failed unexpectedly", call.name)
                rec.error = (f"{call.name} failed with an internal error ({type(exc).__name__}); check "
                             "runtime_status, then retry or try another approach")
        if on_tool is not None:
            on_tool("done", rec)
        return rec

    # --- after the answer ------------------------------------------------------------------------

    def _finish(self, message: str, result: TurnResult, session: str | None) -> None:
        self._reflect(message, result, session or "agent")
        if self.state is not None and session and self.settings.agent.max_history_messages > 0:
            self.state.append(session, message, result.response, self.settings.agent.max_history_messages)

    def _reflect(self, message: str, result: TurnResult, session: str) -> None:
        """Keep the exchange as conversation memory (with the auto_save filters), provenance = engage's refs."""
        if self.memory is None or not self.settings.memory.auto_save:
            return
        from edge_agent.memory import should_auto_save

        if not should_auto_save("user_msg", message) or not result.answered:
            return
        limit = self.settings.memory.max_content_bytes // 2
        content = f"User: {message[:limit // 2]}\nAssistant: {result.response[:limit // 2]}"
        capture = {"type": "summary", "title": " ".join(message.split())[:120], "content": content,
                   "category": "conversation", "importance": 0.3, "tags": ["agent-exchange"]}
        try:
            stored = self.memory.reflect(session, result.response, captures=[capture],
                                         source_refs=result.source_krefs)
        except EdgeAgentError as exc:
            log.warning("the exchange was not stored in memory: %s", exc)
            return
        if self.state is not None:
            for cap in stored.get("captures", []):
                self.state.note_exchange(message, str(cap["entry_id"]))

    # --- offline ---------------------------------------------------------------------------------

    def offline_answer(self, message: str, board: str | None = None) -> str:
        """What the device can say without a model: the best datasheet chunk and the pins the message names."""
        boards = self._board_ids(board)
        facts: dict[str, Any] = {}
        if self.hardware is not None:
            try:
                facts = self.hardware.offline(message, boards)
            except EdgeAgentError as exc:
                log.warning("no offline answer from the datasheets: %s", exc)
        if not facts.get("index"):
            return "No model answered and the datasheet index is not available."
        parts = []
        if facts.get("pins"):
            parts.append("Pins for your message:\n" + str(facts["pins"]))
        c = facts.get("chunk")
        if c:
            parts.append(f"Best datasheet match: {c['source']}" + (f" > {c['heading']}" if c.get("heading") else "")
                         + f"\n{str(c['text']).strip()}")
        return "\n\n".join(parts) or "No model answered, and no datasheet or pin matches the message."

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _filtered(shown: StreamFilter | None, on_token: Callable[[str], None] | None) -> Callable[[str], None] | None:
    if shown is None or on_token is None:
        return None

    def feed(delta: str) -> None:
        if text := shown.feed(delta):
            on_token(text)

    return feed


def _restart(shown: StreamFilter | None, on_token: Callable[[str], None] | None) -> Callable[[str], None]:
    """Before a retried request: end any half-shown streamed text and start the display afresh."""

    def restart(_reason: str) -> None:
        if shown is not None and on_token is not None:
            if shown.shown:
                on_token(" [connection lost, retrying]\n")
            shown.raw = shown.shown = ""

    return restart


def _native_calls(reply: Reply) -> list[ParsedCall]:
    calls = []
    for c in reply.tool_calls:
        args, error = parse_arguments(c.arguments)
        calls.append(ParsedCall(c.name, args, id=c.id, error=error if c.name else "the call has no tool name"))
    return calls


def _args_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    for k, v in usage.items():
        total[k] = total.get(k, 0) + v

