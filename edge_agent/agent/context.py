"""What a turn knows before the model is asked: memory, hardware context, the boards, the prompt.

1. memory is engaged with the message (decay, minimum relevance, token budget), the message's own
   earlier exchanges left out, and earlier questions and orders dropped (:func:`memory_context`);
2. the hardware context (pin aliases and datasheet chunks for the message, scoped to the boards)
   is framed; an action keeps only its pin index in compact mode (:func:`assemble`);
3. a stable system prompt, then the user message with both contexts, the date and the message.

Also here: the configured boards' LED and button pins (for the prompt's hint line and the answer's
fact lines) and the answer the device gives with no model (:func:`offline_answer`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from edge_agent.agent import language
from edge_agent.agent import prompt as promptmod
from edge_agent.agent.choice import CHANGE, MEMORY, Plan
from edge_agent.agent.ports import Hardware, HardwareSource, MemorySource, records, strings
from edge_agent.agent.state import AgentState
from edge_agent.agent.turn import Context
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError
from edge_agent.jsontypes import JsonObject

log = logging.getLogger(__name__)

# An operator message that asks or orders states nothing to remember (its answer is never shown either).
ASKS = re.compile(r"^\W*(which|what|where|when|who|whom|whose|why|how|is|are|was|were|do|does|did|can|could|"
                  r"will|would|should|shall|may|might|has|have|had|tell|show|list|give|read|scan|check|measure|"
                  r"say|explain|find|look|please|hi|hello|hey)\b", re.IGNORECASE)


def memory_context(memory: MemorySource | None, state: AgentState | None, settings: Settings,
                   message: str) -> tuple[str, list[str]]:
    """Engage memory with the message: (context block, source refs); empty when memory is off."""
    results, refs = memory_entries(memory, state, settings, message)
    return promptmod.frame_memory(results), refs


def memory_entries(memory: MemorySource | None, state: AgentState | None, settings: Settings,
                   message: str) -> tuple[list[JsonObject], list[str]]:
    """Engage memory with the message: (the entries for the context, source refs); empty when memory is off."""
    if memory is None:
        return [], []
    s = settings
    # This message's own earlier exchanges stay out: asked again, it must build the same prompt.
    exclude = state.exchanges_of(message) if state is not None else []
    try:
        found = memory.engage(message, limit=s.kumiho.memory_retrieval_limit,
                              min_score=s.memory.min_relevance_score, exclude_ids=exclude)
    except EdgeAgentError as exc:
        log.warning("memory context left out: %s", exc)
        return [], []
    results, refs = records(found, "results"), strings(found, "source_refs")
    if len(refs) != len(results):
        refs = [str(r.get("source_ref") or "") for r in results]
    if not MEMORY.search(message):  # "what did I ask earlier" still sees the earlier questions
        kept = [(r, ref) for r, ref in zip(results, refs, strict=True) if not asked_or_ordered(r)]
        results, refs = [r for r, _ in kept], [ref for _, ref in kept]
    return results, [ref for ref in refs if ref]


def hardware_context(hardware: HardwareSource | None, message: str, boards: list[str]) -> Hardware:
    """Pin aliases and datasheet chunks for the message, scoped to the boards (as the index gives them)."""
    if hardware is None or not boards:
        return Hardware()
    return hardware.context(message, boards)


def assemble(system: str, message: str, *, memory: str, krefs: list[str], raw_hardware: str, chosen: Plan,
             history: list[dict[str, str]], compact: bool, lookup: Sequence[str] = ()) -> Context:
    """The turn's context from its parts: the prompt, the tools planned and the history that fits; a
    lookup's answer lines (`lookup`) go with the message, fenced as data, so the model's words can agree."""
    # An action's answer comes from its tool results: of the hardware context it keeps the pin index
    # (which pin a name is), not datasheet chunks (hundreds of tokens to read, and a small model copies
    # numbers out of them instead of calling the tool).
    hardware = promptmod.frame_hardware(promptmod.pins_only(raw_hardware) if compact and chosen.require
                                        else raw_hardware)
    if lookup:
        hardware = "\n".join(b for b in (hardware, promptmod.fence("lookup", "\n".join(lookup))) if b)
    if compact:  # the oldest history goes first when the request would not fit
        while history and sum(len(m["content"]) for m in history) > promptmod.COMPACT_PROMPT_CHARS // 2:
            history = history[2:]
    asked = f"{message}\n{line}" if (line := language.instruction(message)) else message
    prompt = promptmod.build_prompt(system, memory, hardware, asked, compact=compact,
                                    history_chars=sum(len(m["content"]) for m in history) if compact else 0)
    return Context(prompt, krefs, history, chosen.tools, chosen.require, message, lookup=list(lookup))


def asked_or_ordered(entry: JsonObject) -> bool:
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


def board_labels(boards: list[tuple[str, str]]) -> dict[str, str]:
    """The boards' LED and button pins, by native pin name ("PA5" -> "LED LD2")."""
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


def board_files(boards: list[tuple[str, str]]) -> list[Any]:
    """The configured boards' board files (pins with headers and functions), those that have one."""
    from edge_agent.pins import get_board

    out = []
    for board in dict.fromkeys(b for _, b in boards):
        try:
            out.append(get_board(board))
        except EdgeAgentError:
            continue
    return out


def board_hints(boards: list[tuple[str, str]]) -> list[str]:
    """The LED and button line of each configured board that has a board file."""
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


def offline_answer(hardware: HardwareSource | None, message: str, boards: list[str]) -> str:
    """What the device can say without a model: the best datasheet chunk and the pins the message names."""
    facts: dict[str, Any] = {}
    if hardware is not None:
        try:
            facts = hardware.offline(message, boards)
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
