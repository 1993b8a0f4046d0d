"""The rounds of one turn: ask the model, run its calls, until it answers or the limit is reached.

Each round sends the conversation (the tools the message is offered, a call forced when an action
still needs one: :mod:`edge_agent.agent.forcing`) and reads the reply:

- a reply with calls: they run (:mod:`edge_agent.agent.execution`) and the next round follows; once
  an action's calls all ran, or a round only repeated earlier calls, the answer is asked for;
- a reply with an answer: the turn's answer (:mod:`edge_agent.agent.answering`);
- an action answered without its tool: asked once to call it; still not, the words are marked
  unchecked and the turn is neither cached nor remembered;
- only reasoning, nothing, a refusal after tools ran, or a call that could not be read: asked once
  for the answer (the tools stay in the request, so the server reuses its cached prefix); failing
  that the answer is written from the tool results;
- HTTP 500 from the server's tool-call parser is a model error, not an outage: the request is sent
  once more, then without tools;
- an answer in English to a message that asked for another language: asked once to write it in
  that language (:mod:`edge_agent.agent.answerlang`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from edge_agent.agent import answering, answerlang, display, execution, forcing, language
from edge_agent.agent.choice import named_pins
from edge_agent.agent.parsing import ParsedCall, StreamFilter, split_reasoning, text_tool_calls
from edge_agent.agent.provider import ProviderChain
from edge_agent.agent.records import NOT_OFFERED, OnTool, Outcome, ToolRecord
from edge_agent.agent.turn import Context, TurnResult
from edge_agent.errors import ModelOutputError
from edge_agent.jsontypes import JsonObject

if TYPE_CHECKING:
    from edge_agent.agent.runner import ToolRunner

log = logging.getLogger(__name__)

Specs = Callable[[Sequence[str]], list[JsonObject]]


class Rounds:
    """One turn's conversation with the model; make a new one per turn and call :meth:`run` once."""

    def __init__(self, ctx: Context, *, chain: ProviderChain, specs: Specs, runner: ToolRunner, compact: bool,
                 max_rounds: int, labels: Mapping[str, str], on_token: Callable[[str], None] | None,
                 on_tool: OnTool | None) -> None:
        self.ctx, self.chain, self.specs, self.runner = ctx, chain, specs, runner
        self.compact, self.max_rounds, self.labels = compact, max_rounds, labels
        self.on_token, self.on_tool = on_token, on_tool
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": ctx.prompt.system}, *ctx.history,
                                               {"role": "user", "content": ctx.prompt.user}]
        self.result = TurnResult("")
        # the pins the action's calls are forced to: as the message writes them, else as the pin index or
        # the note that answers it names them (a write is held to the first two)
        named = (named_pins(ctx.message) or ctx.aliases) if compact else []
        self.pins = (named or ctx.note_pins) if compact else []
        if "gpio_write" in ctx.tools and compact:
            runner.named_pins = named
        self.final = not ctx.tools  # no tools offered: the model's next reply must be the answer
        # The language the message asks the answer to be in (not English): its answer is shown once checked.
        asked_in = language.requested(ctx.message)
        self.lang = asked_in if asked_in != "English" else None
        self.first: str | None = None  # an answer in English, kept while it is asked for in self.lang
        self.asked = False  # the final answer was asked for explicitly
        # The tools stay in the request while the answer is asked for: the same request prefix lets the
        # server reuse its cache (a changed tool block means prefilling it all again). They are dropped
        # only when the server's tool-call parser keeps rejecting the model's output.
        self.withheld = False
        self.nudged = False  # asked once to call the tool an action needs
        self.unparsed = 0  # replies that tried to be a call and could not be read
        self.model_errors = 0

    def run(self) -> TurnResult:
        while True:
            done = self._round()
            if done is not None:
                return done

    def _ask_for_answer(self) -> None:
        self.final = self.asked = True
        self.messages.append({"role": "user", "content": answering.final_request(self.result)})

    def _composed(self, why: str) -> TurnResult:
        return answering.composed(self.result, self.on_token, why, self.labels)

    def _round(self) -> TurnResult | None:
        """One request and what follows from its reply: the result when the turn ends, else None."""
        ctx, result, on_token = self.ctx, self.result, self.on_token
        shown = StreamFilter() if on_token is not None else None
        # A reply after tool calls (or to a lookup) is not shown as it streams: its answer starts with what
        # the tools (the lookups) found.
        shows = display.hold if on_token is not None and (result.tool_calls or ctx.lookup or self.lang) else on_token
        # An action's calls are forced (well-formed, to the tools and pins it needs) until each ran once.
        need, need_pins = forcing.needed(ctx.tools, self.pins, result.tool_calls, require=ctx.require,
                                         final=self.final, rounds=result.rounds)
        try:
            tools = None if self.withheld or not ctx.tools else self.specs(ctx.tools)
            reply = self.chain.complete(self.messages, tools,
                                        on_token=display.filtered(shown, shows), on_retry=display.restart(shown, shows),
                                        tool_choice="none" if self.final else "required" if need else None,
                                        only=need, values=forcing.narrowed(ctx.message, need_pins))
        except ModelOutputError as exc:  # the server could not parse what the model wrote
            return self._rejected(exc)
        for k, v in reply.usage.items():
            result.usage[k] = result.usage.get(k, 0) + v
        result.provider = reply.provider
        visible, _reasoning = split_reasoning(reply.content)
        calls = execution.native_calls(reply) or text_tool_calls(visible)
        if self.final:
            return self._final_reply(visible, calls, shown)
        if not calls:
            return self._no_call(visible, shown)
        if unreadable := [c for c in calls if not c.name]:  # not a call: nothing ran, nothing is counted
            calls = [c for c in calls if c.name]
            result.notes += [f"a reply was not a readable tool call and nothing ran: {c.error}" for c in unreadable]
            if not calls:
                self._unreadable(visible, unreadable[0])
                return None
        if result.rounds >= self.max_rounds:
            return answering.limit_reached(result, self.max_rounds, on_token, self.labels)
        return self._calls(calls, visible if reply.tool_calls else None)

    def _rejected(self, exc: ModelOutputError) -> TurnResult | None:
        self.model_errors += 1
        self.result.notes.append(str(exc))
        log.info("model output rejected by the server (%d): %s", self.model_errors, exc)
        if self.model_errors == 1:
            return None  # a second sample usually parses
        if not self.withheld:
            self.withheld = True
            self._ask_for_answer()
            return None
        return self._composed("the server could not parse the model's output")

    def _final_reply(self, visible: str, calls: list[ParsedCall], shown: StreamFilter | None) -> TurnResult | None:
        """The reply to a request for the answer."""
        result = self.result
        if visible and not calls and not (result.tool_calls and answering.REFUSAL.match(visible)):
            return self._answer(visible, shown)
        if self.first is not None:  # no usable answer when asked for it in the language: the first one stands
            return self._answer(visible, shown, english=True)
        if self.asked:  # still no usable answer: the tool results speak for themselves
            return self._composed("the model gave no final answer")
        self.asked = True
        for call in (c for c in calls if c.name):  # kept in the record (worth seeing), never run
            result.tool_calls.append(ToolRecord(call.name, call.arguments, outcome=Outcome.NOT_OFFERED,
                                                error=f"{NOT_OFFERED}; answer in plain text"))
        if visible:
            self.messages.append({"role": "assistant", "content": visible})
        self.messages.append({"role": "user", "content": answering.final_request(result)})
        return None

    def _no_call(self, visible: str, shown: StreamFilter | None) -> TurnResult | None:
        """A reply without calls while tools may still run."""
        ctx, result = self.ctx, self.result
        if visible and ctx.require and not result.tool_calls and not self.nudged:
            # an action answered without its tool: a made-up reading, or "call i2c_scan" as advice
            self.nudged = True
            result.notes.append("the model answered an action without calling its tool; asked to call it")
            self.messages.append({"role": "assistant", "content": visible})
            self.messages.append({"role": "user", "content": answering.CALL_NOW.format(tools=", ".join(ctx.tools))})
            return None
        if visible and ctx.require and not result.tool_calls:  # asked to call it, and still did not
            result.answered = False  # unverified: neither cached nor remembered
            visible = answering.unchecked(visible, ctx.tools)
        if visible:
            return self._answer(visible, shown)
        self._ask_for_answer()  # only reasoning, or nothing: ask once for the answer
        return None

    def _answer(self, visible: str, shown: StreamFilter | None, *, english: bool = False) -> TurnResult | None:
        """The turn's answer; an answer in English to a message that asked for another language is asked
        for in that language once (None: asked), and stated as not in it when it comes back in English
        again (`english`: the reply to that request was no answer at all)."""
        result, lang = self.result, self.lang
        if lang and not result.tool_calls and not self.ctx.lookup and result.answered:
            wrong = english or answerlang.in_language(visible, lang) is False
            if wrong and self.first is None:
                self.first = visible
                result.notes.append(f"the model answered in English, not in {lang}; asked once to write it in {lang}")
                self.messages.append({"role": "assistant", "content": visible})
                self.messages.append({"role": "user", "content": answerlang.REWRITE.format(lang=lang)})
                self.final = self.asked = True
                return None
            if wrong:
                result.notes.append(f"asked again, the model still answered in English, not in {lang}")
                result.answered = False  # neither cached nor remembered
                visible = f"{self.first}\n{answerlang.NOT_IN.format(lang=lang)}"
        return answering.answered(result, visible, shown, self.on_token, self.labels, self.ctx.lookup,
                                  held=self.lang is not None)

    def _unreadable(self, visible: str, first: ParsedCall) -> None:
        """A reply that tried to be a call and could not be read: say how to write one, then ask for the answer."""
        self.unparsed += 1
        self.messages.append({"role": "assistant", "content": visible[:300]})
        self.messages.append({"role": "user", "content": answering.UNREADABLE.format(
            error=first.error, tools=", ".join(self.ctx.tools)) if self.unparsed == 1
            else answering.final_request(self.result)})
        self.final = self.asked = self.unparsed > 1

    def _calls(self, calls: list[ParsedCall], visible: str | None) -> TurnResult | None:
        """Run a reply's calls; ask for the answer when the action is done or the model only repeats itself."""
        ctx, result = self.ctx, self.result
        records = execution.run_round(self.messages, calls, visible, self.runner, result, self.on_tool,
                                      compact=self.compact)
        if ctx.require and not self.final and forcing.all_made(ctx.tools, self.pins, result.tool_calls):
            # the action's calls ran: the next reply is the answer, asked for in words too (with the tool
            # block still in the prompt a small model otherwise writes the call again as text)
            self._ask_for_answer()
            return None
        if all(r.repeat for r in records) and not self.asked:  # going round in circles: answer from what it has
            self._ask_for_answer()
        elif all(r.repeat for r in records):
            return self._composed("the model repeated a call instead of answering")
        return None
