"""One agent turn: engage memory, build the prompt, call the model, run its tools, answer, reflect.

1. engage memory with the message (decay, minimum relevance, token budget) and keep its source refs;
2. hardware context: pin aliases and datasheet chunks for the message, scoped to the boards;
3. a stable system prompt, then the user message with both contexts, the date and the message;
4. the model is offered the tools the message calls for (:mod:`edge_agent.agent.choice`); each call
   it makes runs through :class:`~edge_agent.agent.runner.ToolRunner` (repaired, checked, asked about,
   never repeated) and its result (or the error, written for the model) goes back as a ``tool``
   message; repeat until it answers without calls or ``max_tool_iterations`` rounds ran;
5. when the model stops without an answer (empty, only reasoning, a refusal after tools ran, the same
   call again), it is asked once to answer from the tool results (the tools stay in the request, so
   the server reuses its cached prefix); failing that the
   answer is written from the results themselves. A server that cannot parse the model's output
   (HTTP 500 from its tool-call parser) is a model error: the request is sent once more, then
   without tools. The answer of a turn that ran tools starts with what they did, stated from their
   results, and keeps the model's words only when they do not contradict them
   (:mod:`edge_agent.agent.facts`);
6. a turn that called no tool is answered from, or stored in, the response cache (what makes a key,
   and which turns never use the cache: :mod:`edge_agent.agent.cachekey`); a hit loads neither the
   model client nor the tool schemas and the services behind them;
7. an answered exchange is reflected into memory as a conversation capture with the source refs, and
   kept in the session history.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from edge_agent.agent import facts, language
from edge_agent.agent import prompt as promptmod
from edge_agent.agent import toolset as toolsetmod
from edge_agent.agent.autonomy import Autonomy
from edge_agent.agent.cachekey import CacheKey, asks_for_change, make_key
from edge_agent.agent.caller import ToolCaller
from edge_agent.agent.choice import CHANGE, MEMORY, Plan, asked_level, choose, named_pins, plan, still_needed
from edge_agent.agent.parsing import ParsedCall, StreamFilter, parse_arguments, split_reasoning, text_tool_calls
from edge_agent.agent.ports import HardwareSource, MemorySource, records, strings
from edge_agent.agent.provider import ProviderChain, Reply
from edge_agent.agent.records import NOT_OFFERED, OnTool, ToolRecord, summarize
from edge_agent.agent.state import AgentState
from edge_agent.agent.toolset import ToolSet
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError, ModelOutputError
from edge_agent.jsontypes import JsonObject

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 10
FINAL_AFTER_TOOLS = ("Now answer my message in plain text, in one to three sentences, from the tool results above: "
                     "say what was done and what was found. Do not call a tool.")
FINAL_NO_TOOLS = "Now answer my message above in plain text."
CALL_NOW = ("That is not a tool result. Call the tool ({tools}) now, with only the call in your reply; "
            "answer after its result.")
# A reply that tried to be a call and could not be read: no tool named "" (or "invalid") ever goes
# into the conversation, where a small model would copy it as a tool name.
UNREADABLE = ("Nothing ran: your reply was not a tool call I could read ({error}). Write the call alone as "
              '{{"name": "<tool>", "arguments": {{...}}}} with one of: {tools}; or answer in plain text.')
# In compact mode a reply is cut at this many tokens: a small model that runs on (repeating itself, or
# writing newlines) would otherwise hold the turn for minutes.
COMPACT_MAX_TOKENS = 512
# Rounds in which an action's calls are forced (plus one per pin the message names); after that the
# model's default applies (a server that ignores the schema must not be asked forever).
FORCED_ROUNDS = 2
# A reply that declines instead of reporting (small models answer a bare "answer now" this way).
REFUSAL = re.compile(r"^\W*(i'?m sorry|i am sorry|sorry,? i|i can(no|'|’)t|i cannot|i'?m unable|i am unable|"
                     r"as an ai)\b", re.IGNORECASE)
ADDRESS = re.compile(r"\b0x([0-9a-fA-F]{2})\b")  # an I2C address the message names
MEM_REF = re.compile(r"[ \t]*\(?\bmem://[^\s)\],;]+\)?")
TOOL_RESULT_CHARS = {True: 3000, False: 12000}  # per tool result, compact / full mode
# An operator message that asks or orders states nothing to remember (its answer is never shown either).
ASKS = re.compile(r"^\W*(which|what|where|when|who|whom|whose|why|how|is|are|was|were|do|does|did|can|could|"
                  r"will|would|should|shall|may|might|has|have|had|tell|show|list|give|read|scan|check|measure|"
                  r"say|explain|find|look|please|hi|hello|hey)\b", re.IGNORECASE)


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
    answered: bool = True  # False when the model gave no answer: nothing to cache or remember
    notes: list[str] = field(default_factory=list)  # what the loop did about the model's mistakes
    tools_offered: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        """Answered, within the limits, and not a turn whose every tool call failed."""
        failed = bool(self.tool_calls) and all(t.error is not None for t in self.tool_calls)
        return self.answered and not self.limit_reached and not failed

    def as_dict(self) -> JsonObject:
        return {"response": self.response, "tool_calls": [t.as_dict() for t in self.tool_calls],
                "cached": self.cached, "provider": self.provider, "usage": dict(self.usage),
                "tool_rounds": self.rounds, "limit_reached": self.limit_reached,
                "source_krefs": list(self.source_krefs), "tools_offered": list(self.tools_offered),
                "notes": list(self.notes)}


@dataclass
class Context:
    """What a turn knows before the model is asked."""

    prompt: promptmod.Prompt
    source_krefs: list[str]
    history: list[dict[str, str]]
    tools: list[str] = field(default_factory=list)
    require: bool = False  # the answer needs a result of one of `tools` (the message asks for an action)
    message: str = ""


class Agent:
    """The turn loop over one configuration, hardware context, memory, tool caller and providers.

    ``hardware`` gives the hardware context (``context`` and ``offline``, see
    :mod:`edge_agent.agent.sources`); ``memory`` engages, reflects and holds the response cache: the
    memory store itself, or the daemon's through its socket. Either may be None (left out).
    """

    def __init__(self, settings: Settings, *, hardware: HardwareSource | None, memory: MemorySource | None,
                 caller: ToolCaller, chain: ProviderChain,
                 state: AgentState | None = None) -> None:
        self.settings = settings
        self.hardware, self.memory, self.caller, self.chain, self.state = hardware, memory, caller, chain, state
        if settings.agent.compact_context and getattr(chain, "max_tokens", 0) is None:
            chain.max_tokens = COMPACT_MAX_TOKENS
        self.compact = settings.agent.compact_context
        boards = settings.peripherals.boards if settings.peripherals.enabled else []
        self.boards = [(b.adapter_name, b.board) for b in boards]
        self.system = promptmod.system_prompt(self.boards, compact=self.compact, hints=_board_hints(self.boards))
        # The schemas are built only when a model is asked with tools; the tool names and schema digests
        # come from the record kept for this package version (see edge_agent.agent.toolset).
        self._toolset: ToolSet | None = None
        self._specs: dict[str, dict[str, Any]] | None = None
        self.max_rounds = settings.agent.max_tool_iterations or DEFAULT_ITERATIONS
        self.autonomy = Autonomy(settings.autonomy.level, settings.autonomy.max_actions_per_hour, state)
        self._pool: ThreadPoolExecutor | None = None
        self._labels: dict[str, str] | None = None

    @property
    def toolset(self) -> ToolSet:
        """The tools this mode offers and their schema digests: the kept record, or built (and kept)."""
        if self._toolset is None:
            self._toolset = toolsetmod.recorded(self.state, self.compact, len(self.boards))
            if self._toolset is None:
                self._build_specs()
        assert self._toolset is not None
        return self._toolset

    def _build_specs(self) -> dict[str, dict[str, Any]]:
        """Build the tool specs (this imports the tools) and correct the kept record if it differs."""
        if self._specs is None:
            self._specs = toolsetmod.build_specs(self.compact, len(self.boards))
            built = ToolSet.of(self._specs)
            if built != self._toolset:
                if self._toolset is not None:
                    log.warning("the kept tool-set record did not match the tool schemas; corrected")
                toolsetmod.remember(self.state, self.compact, len(self.boards), built)
                self._toolset = built
        return self._specs

    @property
    def available(self) -> list[str]:
        """Every tool of this mode (compact or full), in registration order."""
        return list(self.toolset.available)

    @property
    def tools(self) -> list[dict[str, object]]:
        """The OpenAI tool specs of every tool of this mode (builds the schemas)."""
        return list(self._build_specs().values())

    def specs(self, names: Sequence[str]) -> list[JsonObject]:
        """The OpenAI tool specs of `names`, in registration order (builds the schemas)."""
        specs = self._build_specs()
        return [specs[n] for n in specs if n in set(names)]

    def sent_specs(self, names: Sequence[str]) -> list[JsonObject]:
        """The tool block a request carries when `names` are offered. In compact mode it is every tool
        of the mode, whatever the message: the chat template puts the block right after the system
        prompt, so an unchanged block keeps the server's cached prefix (a block that varied by question
        was re-read, 400-800 tokens, on most turns). Only `names` may run, and a call the answer needs
        is forced to one of them (``only``)."""
        return self.specs(self.available if self.compact else names)

    def tools_for(self, message: str, hardware: str = "") -> list[str]:
        """The tools this message is offered (``[agent] tool_choice``)."""
        return self.plan_for(message, hardware).tools

    def plan_for(self, message: str, hardware: str = "") -> Plan:
        """What the message asks for: the tools offered and whether a call is required (``[agent] tool_choice``:
        "all" offers every tool and requires nothing; "question" plans per message in compact mode and
        chooses the tools by the message's words in full mode)."""
        if self.settings.agent.tool_choice == "all":
            return Plan(list(self.available))
        words = [w for pair in self.boards for w in pair]
        pins = "[Pin aliases" in hardware
        if not self.compact:
            return Plan(choose(message, self.available, board_words=words, pins_named=pins))
        return plan(message, self.available, board_words=words, pins_named=pins, documented=bool(hardware.strip()))

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
        results, refs = records(found, "results"), strings(found, "source_refs")
        if len(refs) != len(results):
            refs = [str(r.get("source_ref") or "") for r in results]
        if not MEMORY.search(message):  # "what did I ask earlier" still sees the earlier questions
            kept = [(r, ref) for r, ref in zip(results, refs, strict=True) if not _asked_or_ordered(r)]
            results, refs = [r for r, _ in kept], [ref for _, ref in kept]
        return promptmod.frame_memory(results), [ref for ref in refs if ref]

    def hardware_context(self, message: str, board: str | None = None) -> str:
        """Pin aliases and datasheet chunks for the message, scoped to the boards (as the index gives them)."""
        boards = self._board_ids(board)
        if self.hardware is None or not boards:
            return ""
        return str(self.hardware.context(message, boards))

    def build(self, message: str, *, session: str | None = None, board: str | None = None) -> Context:
        history = self.state.history(session, self.settings.agent.max_history_messages) \
            if self.state is not None and session else []
        memory, krefs = self.memory_context(message)
        raw_hardware = self.hardware_context(message, board)
        chosen = self.plan_for(message, raw_hardware)
        # An action's answer comes from its tool results: of the hardware context it keeps the pin index
        # (which pin a name is), not datasheet chunks (hundreds of tokens to read, and a small model copies
        # numbers out of them instead of calling the tool).
        hardware = promptmod.frame_hardware(promptmod.pins_only(raw_hardware) if self.compact and chosen.require
                                            else raw_hardware)
        if self.compact:  # the oldest history goes first when the request would not fit
            while history and sum(len(m["content"]) for m in history) > promptmod.COMPACT_PROMPT_CHARS // 2:
                history = history[2:]
        asked = f"{message}\n{line}" if (line := language.instruction(message)) else message
        prompt = promptmod.build_prompt(self.system, memory, hardware, asked, compact=self.compact,
                                        history_chars=sum(len(m["content"]) for m in history) if self.compact else 0)
        return Context(prompt, krefs, history, chosen.tools, chosen.require, message)

    # --- the turn --------------------------------------------------------------------------------

    def _cache(self) -> Any:
        if self.memory is None:
            return None
        try:
            return self.memory.response_cache
        except EdgeAgentError as exc:
            log.warning("response cache not used: %s", exc)
            return None

    def cache_key(self, ctx: Context, message: str) -> CacheKey:
        """The response-cache key of this turn (:mod:`edge_agent.agent.cachekey`); loads no schema."""
        tools = self.toolset.identity(ctx.tools) if ctx.tools else ""
        return make_key(provider=self.chain.identity(), system_prompt=ctx.prompt.system, tools=tools,
                        mode=self.chain.known_mode() if ctx.tools else None, user_prompt=ctx.prompt.user,
                        history=ctx.history, message=message)

    def turn(self, message: str, *, session: str | None = None, board: str | None = None,
             on_token: Callable[[str], None] | None = None,
             on_tool: OnTool | None = None) -> TurnResult:
        """Answer one message (ProviderError when no provider answers)."""
        ctx = self.build(message, session=session, board=board)
        # A message that asks for a change is never answered from the cache, nor stored in it.
        cache = None if asks_for_change(message) else self._cache()
        if cache is not None:
            key = self.cache_key(ctx, message)
            hit = cache.get(key.provider, key.system, key.user)
            if hit is not None:
                if on_token is not None:
                    on_token(hit)
                result = TurnResult(hit, cached=True, provider="cache", source_krefs=ctx.source_krefs,
                                    prompt_chars=ctx.prompt.chars, tools_offered=list(ctx.tools))
                self._finish(message, result, session)
                return result
        result = self._converse(ctx, on_token, on_tool)
        result.source_krefs, result.prompt_chars = ctx.source_krefs, ctx.prompt.chars
        result.tools_offered = list(ctx.tools)
        first = self.chain.providers[0].shown
        if cache is not None and not result.tool_calls and result.succeeded and result.provider == first:
            # The key again: the provider's tool-call mode may have been probed and the schemas checked.
            key = self.cache_key(ctx, message)
            try:
                cache.put(key.provider, key.system, key.user, result.response,
                          tokens=result.usage.get("completion_tokens"))
            except EdgeAgentError as exc:
                log.warning("answer not cached: %s", exc)
        self._finish(message, result, session)
        return result

    def _converse(self, ctx: Context, on_token: Callable[[str], None] | None, on_tool: OnTool | None) -> TurnResult:
        messages: list[dict[str, Any]] = [{"role": "system", "content": ctx.prompt.system}, *ctx.history,
                                          {"role": "user", "content": ctx.prompt.user}]
        result = TurnResult("")
        runner = self._runner(ctx.tools)
        pins = named_pins(ctx.message) if self.compact else []
        if "gpio_write" in ctx.tools and self.compact:
            runner.named_pins = pins
        final = not ctx.tools  # no tools offered: the model's next reply must be the answer
        asked = False  # the final answer was asked for explicitly
        # The tools stay in the request while the answer is asked for: the same request prefix lets the
        # server reuse its cache (a changed tool block means prefilling it all again). They are dropped
        # only when the server's tool-call parser keeps rejecting the model's output.
        withheld = False
        nudged = False  # asked once to call the tool an action needs
        unparsed = 0  # replies that tried to be a call and could not be read
        model_errors = 0
        while True:
            shown = StreamFilter() if on_token is not None else None
            # A reply after tool calls is not shown as it streams: its answer starts with what the tools did.
            display = _hold if on_token is not None and result.tool_calls else on_token
            # An action's calls are forced (well-formed, to the tools and pins it needs) until each ran once.
            need, need_pins = still_needed(ctx.tools, pins, [(r.name, r.arguments) for r in result.tool_calls]) \
                if ctx.require and not final and result.rounds < FORCED_ROUNDS + len(pins) else ([], [])
            try:
                reply = self.chain.complete(messages, None if withheld or not ctx.tools else self.sent_specs(ctx.tools),
                                            on_token=_filtered(shown, display), on_retry=_restart(shown, display),
                                            tool_choice="none" if final else "required" if need else None,
                                            only=need, values=_narrowed(ctx.message, need_pins))
            except ModelOutputError as exc:  # the server could not parse what the model wrote
                model_errors += 1
                result.notes.append(str(exc))
                log.info("model output rejected by the server (%d): %s", model_errors, exc)
                if model_errors == 1:
                    continue  # a second sample usually parses
                if not withheld:
                    final = asked = withheld = True
                    messages.append({"role": "user", "content": self._final_request(result)})
                    continue
                return self._composed(result, on_token, "the server could not parse the model's output")
            _add_usage(result.usage, reply.usage)
            result.provider = reply.provider
            visible, _reasoning = split_reasoning(reply.content)
            calls = _native_calls(reply) or text_tool_calls(visible)
            if final:
                if visible and not calls and not (result.tool_calls and REFUSAL.match(visible)):
                    return self._answer(result, visible, shown, on_token)
                if asked:  # still no usable answer: the tool results speak for themselves
                    return self._composed(result, on_token, "the model gave no final answer")
                asked = True
                for call in (c for c in calls if c.name):  # kept in the record (worth seeing), never run
                    result.tool_calls.append(ToolRecord(call.name, call.arguments,
                                                        error=f"{NOT_OFFERED}; answer in plain text"))
                if visible:
                    messages.append({"role": "assistant", "content": visible})
                messages.append({"role": "user", "content": self._final_request(result)})
                continue
            if not calls:
                if visible and ctx.require and not result.tool_calls and not nudged:
                    # an action answered without its tool: a made-up reading, or "call i2c_scan" as advice
                    nudged = True
                    result.notes.append("the model answered an action without calling its tool; asked to call it")
                    messages.append({"role": "assistant", "content": visible})
                    messages.append({"role": "user", "content": CALL_NOW.format(tools=", ".join(ctx.tools))})
                    continue
                if visible and ctx.require and not result.tool_calls:  # asked to call it, and still did not
                    result.answered = False  # unverified: neither cached nor remembered
                    visible = (f"(No tool ran, so nothing was read or changed: the model answered without calling "
                               f"{' or '.join(ctx.tools)}. Its words, unchecked:) {visible}")
                if visible:
                    return self._answer(result, visible, shown, on_token)
                final = asked = True  # only reasoning, or nothing: ask once for the answer
                messages.append({"role": "user", "content": self._final_request(result)})
                continue
            if unreadable := [c for c in calls if not c.name]:  # not a call: nothing ran, nothing is counted
                calls = [c for c in calls if c.name]
                result.notes += [f"a reply was not a readable tool call and nothing ran: {c.error}" for c in unreadable]
                if not calls:
                    unparsed += 1
                    messages.append({"role": "assistant", "content": visible[:300]})
                    messages.append({"role": "user", "content": UNREADABLE.format(
                        error=unreadable[0].error, tools=", ".join(ctx.tools)) if unparsed == 1
                        else self._final_request(result)})
                    final = asked = unparsed > 1
                    continue
            if result.rounds >= self.max_rounds:
                result.limit_reached = True
                result.answered = False
                result.response = (f"Stopped: the model still wanted to call tools after {result.rounds} rounds "
                                   f"(max_tool_iterations = {self.max_rounds}). Ask again more specifically, "
                                   "or raise [agent] max_tool_iterations.")
                if summary := "\n".join(facts.facts(result.tool_calls, self.labels)) or summarize(result.tool_calls):
                    result.response += "\nWhat the tools did:\n" + summary
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
            records = runner.run(calls, on_tool)
            result.tool_calls += records
            if len(calls) > runner.max_calls:
                result.notes.append(f"{len(calls) - runner.max_calls} of {len(calls)} calls in one reply were not "
                                    f"run ([agent] max_calls_per_reply = {runner.max_calls})")
            for call, rec in zip(calls, records, strict=True):
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": self._result_text(rec.name, rec.body())})
            if ctx.require and not final and \
                    not still_needed(ctx.tools, pins, [(r.name, r.arguments) for r in result.tool_calls])[0]:
                # the action's calls ran: the next reply is the answer, asked for in words too (with the tool
                # block still in the prompt a small model otherwise writes the call again as text)
                final = asked = True
                messages.append({"role": "user", "content": self._final_request(result)})
                continue
            if all(r.repeat for r in records) and not asked:  # going round in circles: answer from what it has
                final = asked = True
                messages.append({"role": "user", "content": self._final_request(result)})
            elif all(r.repeat for r in records):
                return self._composed(result, on_token, "the model repeated a call instead of answering")

    def _answer(self, result: TurnResult, visible: str, shown: StreamFilter | None,
                on_token: Callable[[str], None] | None) -> TurnResult:
        # Memory references are bookkeeping (source_krefs has them), not part of an answer.
        text = MEM_REF.sub("", visible).strip() or visible
        # After tools ran, what they did is stated from their results, before the model's words
        # (which are left out when they contradict the results): see edge_agent.agent.facts.
        result.response, left_out = facts.answer(result.tool_calls, text, self.labels) if result.tool_calls \
            else (text, [])
        result.notes += left_out
        if on_token is not None and result.tool_calls:  # not shown as it streamed (see _converse)
            on_token(result.response)
        elif shown is not None and on_token is not None and (rest := shown.finish(visible)):
            on_token(rest)
        return result

    @property
    def labels(self) -> dict[str, str]:
        """The configured boards' LED and button pins, by native pin name ("PA5" -> "LED LD2")."""
        if self._labels is None:
            self._labels = _board_labels(self.boards)
        return self._labels

    def _final_request(self, result: TurnResult) -> str:
        return FINAL_AFTER_TOOLS if result.tool_calls else FINAL_NO_TOOLS

    def _composed(self, result: TurnResult, on_token: Callable[[str], None] | None, why: str) -> TurnResult:
        """The turn's answer written from the tool results, when the model gives none."""
        summary = "\n".join(facts.facts(result.tool_calls, self.labels)) or summarize(result.tool_calls)
        if summary:
            result.response = f"({why}; what the tools did:)\n{summary}"
        else:
            result.response = f"The model gave no answer ({why})."
            result.answered = False
        if on_token is not None:
            on_token(result.response)
        return result

    def _result_text(self, name: str, body: Any) -> str:
        text = json.dumps(body, ensure_ascii=False, default=str)
        limit = TOOL_RESULT_CHARS[self.compact]
        if len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut]"
        return promptmod.fence(f"tool {name}", text)

    def _runner(self, offered: Sequence[str]) -> Any:
        from edge_agent.agent.runner import ToolRunner  # checks arguments against the schemas: not on a hit

        pool = None
        if self.settings.agent.parallel_tools:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="edge-agent-tool")
            pool = self._pool
        return ToolRunner(self.caller, offered, self.autonomy, adapters={b: a for a, b in self.boards},
                          boards=[b for _, b in self.boards], max_calls=self.settings.agent.max_calls_per_reply,
                          pool=pool)

    # --- after the answer ------------------------------------------------------------------------

    def _finish(self, message: str, result: TurnResult, session: str | None) -> None:
        self._reflect(message, result, session or "agent")
        if self.state is not None and session and self.settings.agent.max_history_messages > 0:
            self.state.append(session, message, result.response, self.settings.agent.max_history_messages)

    def _reflect(self, message: str, result: TurnResult, session: str) -> None:
        """Keep the exchange as conversation memory (with the auto_save filters), provenance = engage's refs."""
        # Failed exchanges are not kept: they would come back as context for later questions; a cached
        # answer was kept when it was first given.
        if self.memory is None or not self.settings.memory.auto_save or not result.succeeded or result.cached:
            return
        from edge_agent.memory import should_auto_save

        if not should_auto_save("user_msg", message):
            return
        limit = self.settings.memory.max_content_bytes // 2
        content = f"User: {message[:limit // 2]}\nAssistant: {result.response[:limit // 2]}"
        capture: JsonObject = {"type": "summary", "title": " ".join(message.split())[:120], "content": content,
                   "category": "conversation", "importance": 0.3, "tags": ["agent-exchange"]}
        try:
            stored = self.memory.reflect(session, result.response, captures=[capture],
                                         source_refs=result.source_krefs)
        except EdgeAgentError as exc:
            log.warning("the exchange was not stored in memory: %s", exc)
            return
        if self.state is not None:
            for cap in records(stored, "captures"):
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


def _asked_or_ordered(entry: JsonObject) -> bool:
    """True for an earlier exchange whose operator message was a question or an order.

    Such an exchange tells a later turn nothing (the agent's answer is never shown as a fact), yet it
    would enter the memory context of every question sharing its words: noise for a small model, and
    a changed prompt (a response-cache miss) for the same question asked again after another one.
    An operator's statement ("the fan is wired to D7") stays.
    """
    content = entry.get("content")
    if entry.get("category") != "conversation" or not isinstance(content, str) or not content.startswith("User: "):
        return False
    said = content[len("User: "):].split("\nAssistant:", 1)[0].strip()
    return said.endswith("?") or ASKS.match(said) is not None or CHANGE.match(said.lstrip(" \t\"'(")) is not None


def _board_labels(boards: list[tuple[str, str]]) -> dict[str, str]:
    from edge_agent.pins import get_board

    labels: dict[str, str] = {}
    for board in dict.fromkeys(b for _, b in boards):
        try:
            info = get_board(board)
        except EdgeAgentError:
            continue
        labels.update({pin: f"LED {name}" for name, pin in info.leds.items()})
        labels.update({pin: f"button {name}" for name, pin in info.buttons.items()})
    return labels


def _board_hints(boards: list[tuple[str, str]]) -> list[str]:
    """The LED and button line of each configured board that has a board file."""
    from edge_agent.errors import EdgeAgentError
    from edge_agent.pins import get_board

    hints = []
    for board in dict.fromkeys(b for _, b in boards):
        try:
            info = get_board(board)
        except EdgeAgentError:
            continue
        if hint := promptmod.board_hint(board, info.leds, info.buttons):
            hints.append(hint)
    return hints


def _hold(_text: str) -> None:
    """Where a reply's text goes while it streams when it is shown only once complete."""


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
        args, error, note = parse_arguments(c.arguments)
        calls.append(ParsedCall(c.name, args, id=c.id, error=error if c.name else "the call has no tool name",
                                note=note))
    return calls


def _narrowed(message: str, pins: Sequence[str]) -> dict[str, list[Any]]:
    """What a forced call's arguments are narrowed to: a ``pin`` to the pins the message names and not
    called yet, a write's ``value`` to the level the message asks for (when it asks for one only), an
    ``addr`` to the addresses it names (none named: the tool's default address)."""
    out: dict[str, list[Any]] = {}
    if pins:
        out["pin"] = list(pins)
    level = asked_level(message)
    if level is not None:
        out["value"] = [level]
    addresses = [int(h, 16) for h in dict.fromkeys(ADDRESS.findall(message or ""))]
    if addresses:
        out["addr"] = addresses
    return out


def _args_text(arguments: Any) -> str:
    """The arguments of a call as the conversation carries it back to the server: always a JSON object.
    Servers decode the arguments of earlier calls (llama.cpp answers HTTP 500 when they do not parse),
    so a call whose arguments were not an object goes back as ``{}``; its tool result says what was wrong."""
    return json.dumps(arguments, ensure_ascii=False, default=str) if isinstance(arguments, dict) else "{}"


def _add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    for k, v in usage.items():
        total[k] = total.get(k, 0) + v

