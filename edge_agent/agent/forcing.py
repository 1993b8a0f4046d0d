"""Forced calls: which calls an action still needs this round, and what their arguments may be.

A message that asks for an action (``Plan.require``) gets its calls forced: the request asks for a
call (``tool_choice`` "required", as a JSON schema of the calls) to the tools still needed, with the
pins the message names and not called yet, the level it asks for and the I2C addresses it names. A
server that ignores the schema must not be asked forever: forcing lasts ``FORCED_ROUNDS`` rounds
plus one per named pin, and stops once the final answer is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from edge_agent.agent.choice import asked_level, still_needed
from edge_agent.agent.records import ToolRecord

# Rounds in which an action's calls are forced (plus one per pin the message names); after that the
# model's default applies (a server that ignores the schema must not be asked forever).
FORCED_ROUNDS = 2
ADDRESS = re.compile(r"\b0x([0-9a-fA-F]{2})\b")  # an I2C address the message names


def made(records: Sequence[ToolRecord]) -> list[tuple[str, Any]]:
    """The (tool, arguments) of the calls a turn made so far."""
    return [(r.name, r.arguments) for r in records]


def needed(tools: Sequence[str], pins: Sequence[str], records: Sequence[ToolRecord], *, require: bool,
           final: bool, rounds: int) -> tuple[list[str], list[str]]:
    """(tools, pins) a call is forced to this round; both empty when nothing is forced."""
    if require and not final and rounds < FORCED_ROUNDS + len(pins):
        return still_needed(tools, pins, made(records))
    return [], []


def all_made(tools: Sequence[str], pins: Sequence[str], records: Sequence[ToolRecord]) -> bool:
    """True when each call the action needs ran at least once."""
    return not still_needed(tools, pins, made(records))[0]


def narrowed(message: str, pins: Sequence[str]) -> dict[str, list[Any]]:
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
