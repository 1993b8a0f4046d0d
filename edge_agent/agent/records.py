"""What one tool call of a turn did: the record the loop keeps, shows and sends back to the model.

Kept apart from the runner (which checks arguments against the tool schemas) so a turn answered from
the response cache, which runs no tool, loads no schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from edge_agent.jsontypes import JsonObject, JsonValue

NOT_OFFERED = "not run: no tool was offered for this message"
REPEAT_NOTE = ("not run again: this exact call already ran earlier in this turn; its result is repeated here. "
               "Do not call it again: answer from it.")


@dataclass
class ToolRecord:
    name: str
    arguments: JsonValue
    result: JsonValue = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    repeat: bool = False  # not run: the same call already ran this turn

    def as_dict(self) -> JsonObject:
        out: JsonObject = {"name": self.name, "arguments": self.arguments}
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
        if r.repeat or (r.error or "").startswith(NOT_OFFERED):
            continue
        args = json.dumps(r.arguments, ensure_ascii=False, default=str)
        if r.error is not None:
            lines.append(f"- {r.name} {args}: not done: {r.error}")
        else:
            text = json.dumps(r.result, ensure_ascii=False, default=str)
            lines.append(f"- {r.name} {args}: {text[:300]}{'...' if len(text) > 300 else ''}")
    return "\n".join(lines)
