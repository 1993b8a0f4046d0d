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

This module is the turn's outline over one configuration (:class:`Agent`); each step is its own
module: the context (:mod:`~edge_agent.agent.context`), the rounds with the model
(:mod:`~edge_agent.agent.rounds`), the calls forced for an action (:mod:`~edge_agent.agent.forcing`),
running a round's calls (:mod:`~edge_agent.agent.execution`), the answer
(:mod:`~edge_agent.agent.answering`) and the reflection (:mod:`~edge_agent.agent.reflection`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from edge_agent.agent import context as contextmod
from edge_agent.agent import lookup
from edge_agent.agent import prompt as promptmod
from edge_agent.agent import toolset as toolsetmod
from edge_agent.agent.answering import FINAL_AFTER_TOOLS, FINAL_NO_TOOLS
from edge_agent.agent.autonomy import Autonomy
from edge_agent.agent.cachekey import CacheKey, asks_for_change, make_key
from edge_agent.agent.caller import ToolCaller
from edge_agent.agent.choice import Plan, choose, named_pins, plan
from edge_agent.agent.context import board_hints as _board_hints
from edge_agent.agent.execution import make_runner
from edge_agent.agent.ports import Hardware, HardwareSource, MemorySource
from edge_agent.agent.provider import ProviderChain
from edge_agent.agent.records import OnTool
from edge_agent.agent.reflection import finish
from edge_agent.agent.rounds import Rounds
from edge_agent.agent.state import AgentState
from edge_agent.agent.toolset import ToolSet
from edge_agent.agent.turn import Context, TurnResult
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError
from edge_agent.jsontypes import JsonObject

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 10
# In compact mode a reply is cut at this many tokens: a small model that runs on (repeating itself, or
# writing newlines) would otherwise hold the turn for minutes.
COMPACT_MAX_TOKENS = 512

__all__ = ["COMPACT_MAX_TOKENS", "DEFAULT_ITERATIONS", "FINAL_AFTER_TOOLS", "FINAL_NO_TOOLS", "Agent", "Context",
           "TurnResult", "_board_hints"]


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
        return contextmod.memory_context(self.memory, self.state, self.settings, message)

    def hardware_context(self, message: str, board: str | None = None) -> Hardware:
        """Pin aliases and datasheet chunks for the message, scoped to the boards (as the index gives them), and
        the pin facts of its pin block."""
        return contextmod.hardware_context(self.hardware, message, self._board_ids(board))

    def build(self, message: str, *, session: str | None = None, board: str | None = None) -> Context:
        history = self.state.history(session, self.settings.agent.max_history_messages) \
            if self.state is not None and session else []
        entries, krefs = contextmod.memory_entries(self.memory, self.state, self.settings, message)
        found = self.hardware_context(message, board)
        raw_hardware = found.text
        chosen = self.plan_for(message, raw_hardware)
        # a lookup is answered from what the pin index, the board files, the notes and the datasheet search
        # returned for it, not from the model's reading of the documentation
        lines = lookup.lookup_facts(message, raw_hardware, found.pins, contextmod.board_files(self.boards), entries) \
            if self.compact and chosen.kind == "lookup" else []
        ctx = contextmod.assemble(self.system, message, memory=promptmod.frame_memory(entries), krefs=krefs,
                                  raw_hardware=raw_hardware, chosen=chosen, history=history,
                                  compact=self.compact, lookup=lines)
        if self.compact and chosen.require and not named_pins(message):
            ctx.aliases = lookup.pin_aliases(found.pins, message)
            ctx.note_pins = [] if ctx.aliases else lookup.note_pin(message, entries)
        return ctx

    @property
    def labels(self) -> dict[str, str]:
        """The configured boards' LED and button pins, by native pin name ("PA5" -> "LED LD2")."""
        if self._labels is None:
            self._labels = contextmod.board_labels(self.boards)
        return self._labels

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
                finish(self.memory, self.state, self.settings, message, result, session)
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
        finish(self.memory, self.state, self.settings, message, result, session)
        return result

    def _converse(self, ctx: Context, on_token: Callable[[str], None] | None, on_tool: OnTool | None) -> TurnResult:
        return Rounds(ctx, chain=self.chain, specs=self.sent_specs, runner=self._runner(ctx.tools),
                      compact=self.compact, max_rounds=self.max_rounds, labels=self.labels, on_token=on_token,
                      on_tool=on_tool).run()

    def _runner(self, offered: Sequence[str]) -> Any:
        pool = None
        if self.settings.agent.parallel_tools:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="edge-agent-tool")
            pool = self._pool
        return make_runner(self.caller, offered, self.autonomy, boards=self.boards,
                           max_calls=self.settings.agent.max_calls_per_reply, pool=pool)

    # --- offline ---------------------------------------------------------------------------------

    def offline_answer(self, message: str, board: str | None = None) -> str:
        """What the device can say without a model: the best datasheet chunk and the pins the message names."""
        return contextmod.offline_answer(self.hardware, message, self._board_ids(board))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
