"""What one agent turn starts from and ends with: its context and its result.

Plain data shared by the steps of a turn (:mod:`edge_agent.agent.context` builds the context,
:mod:`edge_agent.agent.rounds` fills the result); nothing here talks to a model or a tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from edge_agent.agent import prompt as promptmod
from edge_agent.agent.records import ToolRecord
from edge_agent.jsontypes import JsonObject


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
        failed = bool(self.tool_calls) and not any(t.ok for t in self.tool_calls)
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
    # a lookup's answer from the turn's context (pin index, board file, notes, datasheet search), stated
    # before the model's words (:mod:`edge_agent.agent.lookup`)
    lookup: list[str] = field(default_factory=list)
    # an action's pins when the message writes no pin name: the pin index's aliases for its words ("the
    # green user LED"), else the pin of the note that answers it ("the drain valve")
    aliases: list[str] = field(default_factory=list)
    note_pins: list[str] = field(default_factory=list)
