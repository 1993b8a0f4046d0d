"""Running the tool calls of one turn: repair, check, ask, run, and never the same call twice.

For each call a model makes, in order:

1. a call with no name or malformed arguments, or to a tool not offered this turn, is answered with
   an error that shows what a valid call looks like;
2. harmless slips are repaired (:mod:`edge_agent.agent.lenient`), each with a note in the result;
3. the arguments are checked against the tool's schema (the MCP server's check);
4. a call identical to one already made this turn, with no state-changing call since, is not run
   again: its earlier result is returned with a note, and the turn moves to its final answer;
5. a state-changing call goes through ``[autonomy]`` (refused, asked, or run);
6. it runs through the tool caller (the daemon's, or a runtime in this process).

Beyond ``max_calls_per_reply`` calls in one reply, the rest are not run and each says so.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from edge_agent.agent.autonomy import Autonomy
from edge_agent.agent.caller import ToolCaller
from edge_agent.agent.lenient import soften
from edge_agent.agent.parsing import ParsedCall
from edge_agent.agent.records import NOT_OFFERED, REPEAT_NOTE, OnTool, Outcome, ToolRecord, outcome_of, summarize
from edge_agent.agent.tools import check_arguments, valid_call
from edge_agent.errors import EdgeAgentError
from edge_agent.hub import STATE_CHANGING

log = logging.getLogger(__name__)

CALL_FORMAT = '{"name": "<tool name>", "arguments": {<argument>: <value>, ...}}'
def _key(name: str, arguments: Any) -> str:
    return name + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


class ToolRunner:
    """Runs one turn's calls; make a new one per turn (it remembers the turn's calls)."""

    def __init__(self, caller: ToolCaller, offered: Sequence[str], autonomy: Autonomy, *,
                 adapters: Mapping[str, str], boards: Sequence[str], max_calls: int,
                 pool: ThreadPoolExecutor | None = None) -> None:
        self.caller, self.offered, self.autonomy = caller, set(offered), autonomy
        self.adapters, self.boards, self.max_calls, self.pool = dict(adapters), list(boards), max_calls, pool
        # Pins the operator's message names: a write to any other pin is not run (compact mode; empty: no check).
        self.named_pins: list[str] = []
        self._seen: dict[str, ToolRecord] = {}
        self._failed: dict[str, ToolRecord] = {}  # calls refused as sent: the same call gets the same answer

    def run(self, calls: list[ParsedCall], on_tool: OnTool | None) -> list[ToolRecord]:
        """One record per call, in order (calls beyond the cap are not run and say so)."""
        head, tail = calls[:self.max_calls], calls[self.max_calls:]
        if self.pool is not None and len(head) > 1 and not any(c.name in STATE_CHANGING for c in head):
            records = list(self.pool.map(lambda c: self._one(c, on_tool), head))
        else:  # writes run one by one, in the order the model wrote them (and are asked about in order)
            records = [self._one(c, on_tool) for c in head]
        for c in tail:
            records.append(ToolRecord(c.name, c.arguments, outcome=Outcome.REFUSED, error=(
                f"not run: a reply may make at most {self.max_calls} tool calls ([agent] max_calls_per_reply) and "
                f"this one made {len(calls)}. Make the calls that matter first, fewer at a time.")))
        return records

    def _one(self, call: ParsedCall, on_tool: OnTool | None) -> ToolRecord:
        rec = ToolRecord(call.name, call.arguments)
        if on_tool is not None:
            on_tool("start", rec)
        raw = _key(call.name, call.arguments)
        earlier = self._failed.get(raw)
        if earlier is not None:
            rec.same_as(earlier)
            rec.notes = [REPEAT_NOTE]
            if on_tool is not None:
                on_tool("done", rec)
            return rec
        try:
            self._prepare_and_run(call, rec)
        except EdgeAgentError as exc:  # refused, needing approval, malformed or failed: by its class
            rec.fail(outcome_of(exc), str(exc))
        except Exception as exc:  # a bug in a tool must not end the turn: the model is told, the log has it
            log.exception("tool %s failed unexpectedly", call.name)
            rec.fail(Outcome.FAILED, f"{call.name} failed with an internal error ({type(exc).__name__}); check "
                     "runtime_status, then retry or try another approach")
        if rec.error is not None and not rec.repeat:
            self._failed[raw] = rec
        if on_tool is not None:
            on_tool("done", rec)
        return rec

    def _prepare_and_run(self, call: ParsedCall, rec: ToolRecord) -> None:
        if call.error:
            example = valid_call(call.name) if call.name in self.offered else CALL_FORMAT
            rec.fail(Outcome.MALFORMED, f"{call.error}. A valid call looks like {example}")
            return
        if call.name not in self.offered:
            rec.fail(Outcome.MALFORMED, f"there is no tool {call.name!r} this turn; the tools are "
                     f"{', '.join(sorted(self.offered)) or 'none'}. A valid call looks like {CALL_FORMAT}")
            return
        args, repairs = soften(call.name, call.arguments, adapters=self.adapters, boards=self.boards)
        rec.notes = [call.note, *repairs] if call.note else repairs
        rec.arguments = args
        check_arguments(call.name, args)  # InvalidToolCallError says what a valid call looks like
        key = _key(call.name, args)
        earlier = self._seen.get(key)
        if earlier is not None:
            rec.same_as(earlier)
            rec.notes.append(REPEAT_NOTE)
            return
        if call.name == "gpio_write" and (other := self._unnamed_pin(args)):
            rec.fail(Outcome.REFUSED, other)
            return
        # RefusedError (ApprovalNeededError when nobody can say yes): the call does not run
        self.autonomy.check(call.name, args, lambda: self.describe(call.name, args))
        rec.result = self.caller.call_tool(call.name, args)
        if call.name in STATE_CHANGING:
            self.autonomy.ran(call.name)
            self._seen.clear()  # the world changed: reading again is no longer a repeat
        self._seen[key] = rec

    def _unnamed_pin(self, args: Mapping[str, Any]) -> str | None:
        """Why a write is not run when the message names pins and this write's pin is none of them."""
        if not self.named_pins:
            return None
        wanted = {p: self._resolve(p, args.get("board")) for p in self.named_pins}
        if not any(wanted.values()):
            return None  # none of the names is a pin of this board: nothing to hold the call to
        target = self._resolve(args.get("pin"), args.get("board"))
        if target is not None and target in wanted.values():
            return None
        shown = ", ".join(f"{p} (= {r})" if r and r != p else p for p, r in wanted.items())
        return (f"not run: the message names pin {shown}, and this call writes {args.get('pin')!r}"
                + (f" (= {target})" if target and str(target) != str(args.get("pin")) else "")
                + ". Write only the pins the message names.")

    def describe(self, name: str, args: Mapping[str, Any]) -> str:
        """The exact effect of a state-changing call, in words (the pin resolved through the pin index)."""
        where = args.get("adapter") or args.get("board") or (self.boards[0] if self.boards else "the default adapter")
        if name == "gpio_write":
            pin = args.get("pin")
            resolved = self._resolve(pin, args.get("board"))
            value = args.get("value")
            level = {0: "low", 1: "high"}.get(value if isinstance(value, int) else -1, "")
            shown = f"{pin!r}" + (f" (= {resolved})" if resolved and str(resolved) != str(pin) else "")
            return f"gpio_write: drive pin {shown} on {where} to {value}" + (f" ({level})" if level else "")
        if name == "i2c_write":
            reg = args.get("register")
            return (f"i2c_write: write bytes {args.get('bytes')} to I2C address {args.get('addr')} on {where}"
                    + (f" starting at register {reg}" if reg is not None else ""))
        if name == "spi_transfer":
            return f"spi_transfer: send bytes {args.get('bytes')} on {where}"
        shown_args = json.dumps(dict(args), ensure_ascii=False, default=str)
        return f"{name} {shown_args[:200]}"

    def _resolve(self, pin: Any, board: Any) -> str | None:
        try:
            got = self.caller.call_tool("pin_resolve", {"name": pin, "board": board})
        except EdgeAgentError:
            return None
        name = got.get("name") if isinstance(got, Mapping) else None
        return str(name) if name else None


__all__ = ["NOT_OFFERED", "REPEAT_NOTE", "OnTool", "ToolRecord", "ToolRunner", "summarize"]
