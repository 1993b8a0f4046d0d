"""What one tool call of a turn did: the record the loop keeps, shows and sends back to the model.

Each record has an :class:`Outcome`, set where the call was decided: from the class of the error it
raised (:func:`outcome_of`), or by the loop itself (a call it did not run). Whoever reads a record
(the answer's fact lines, ``--json``, the chat's tool lines) goes by the outcome, never by the
wording of the error, which is written for the model and may say anything.

Kept apart from the runner (which checks arguments against the tool schemas) so a turn answered from
the response cache, which runs no tool, loads no schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from edge_agent.errors import ApprovalNeededError, InvalidToolCallError, RefusedError
from edge_agent.jsontypes import JsonObject, JsonValue

NOT_OFFERED = "not run: no tool was offered for this message"
REPEAT_NOTE = ("not run again: this exact call already ran earlier in this turn; its result is repeated here. "
               "Do not call it again: answer from it.")


class Outcome(StrEnum):
    """How a tool call ended."""

    OK = "ok"  # it ran; ``result`` holds what it returned
    REFUSED = "refused"  # a rule said no and nothing ran (safety policy, autonomy level, a cap, the operator)
    NEEDS_APPROVAL = "needs_approval"  # supervised autonomy: the operator's yes was needed, nobody could be asked
    MALFORMED = "malformed"  # the call could not run as written: unreadable, no such tool, wrong arguments
    NOT_OFFERED = "not_offered"  # made when the answer was asked for and no tool was offered; never run
    FAILED = "failed"  # it ran, or was tried, and failed (a bus error, an unknown pin, an internal error)


NOT_DONE = frozenset({Outcome.REFUSED, Outcome.NEEDS_APPROVAL})  # refusals: nothing ran, a rule said no


def outcome_of(exc: BaseException) -> Outcome:
    """The outcome of a call that raised `exc`: from its class, or the class of the error it wraps (a tool
    caller words every error for the model and keeps the original as ``__cause__``)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ApprovalNeededError):
            return Outcome.NEEDS_APPROVAL
        if isinstance(seen, RefusedError):
            return Outcome.REFUSED
        if isinstance(seen, InvalidToolCallError):
            return Outcome.MALFORMED
        seen = seen.__cause__
    return Outcome.FAILED


@dataclass
class ToolRecord:
    name: str
    arguments: JsonValue
    result: JsonValue = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    repeat: bool = False  # not run: the same call already ran this turn
    # How it ended; a record made with an error and no outcome failed (see ``fail`` for the others).
    outcome: Outcome | None = None

    def __post_init__(self) -> None:
        if self.outcome is None:
            self.outcome = Outcome.OK if self.error is None else Outcome.FAILED
        elif (self.outcome is Outcome.OK) != (self.error is None):
            raise ValueError(f"a {self.outcome.value} tool record {'needs' if self.error is None else 'has no'} "
                             "error text")

    def fail(self, outcome: Outcome, error: str) -> None:
        """End the record without a result: `outcome` and the error sentence for the model."""
        if outcome is Outcome.OK:
            raise ValueError("a failed tool record needs an outcome other than ok")
        self.outcome, self.error, self.result = outcome, error, None

    def same_as(self, earlier: ToolRecord) -> None:
        """Take the end of an identical earlier call (this one is not run again)."""
        self.repeat, self.result, self.error, self.outcome = True, earlier.result, earlier.error, earlier.outcome

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    def as_dict(self) -> JsonObject:
        out: JsonObject = {"name": self.name, "arguments": self.arguments, "outcome": str(self.outcome)}
        if self.error is None:
            out["result"] = self.result
        else:
            out["error"] = self.error
        if self.notes:
            out["notes"] = list(self.notes)
        if self.repeat:
            out["repeat"] = True
        return out

    def body(self) -> JsonObject:
        """What goes back to the model: the result (or error), with any notes."""
        if self.error is not None:
            out: JsonObject = {"error": self.error}
        elif isinstance(self.result, dict):
            out = dict(self.result)
        else:
            out = {"result": self.result}
        if self.notes:
            out = {"note": "; ".join(self.notes), **out}
        return out


OnTool = Callable[[str, ToolRecord], None]


def summarize(records: Sequence[ToolRecord]) -> str:
    """What the tools did, in plain lines: the answer when the model gives none."""
    lines = []
    for r in records:
        if r.repeat or r.outcome is Outcome.NOT_OFFERED:
            continue
        args = json.dumps(r.arguments, ensure_ascii=False, default=str)
        if r.error is not None:
            lines.append(f"- {r.name} {args}: not done: {r.error}")
        else:
            text = json.dumps(r.result, ensure_ascii=False, default=str)
            lines.append(f"- {r.name} {args}: {text[:300]}{'...' if len(text) > 300 else ''}")
    return "\n".join(lines)
