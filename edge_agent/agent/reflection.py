"""After the answer: the exchange kept as conversation memory and in the session history.

Only a turn that succeeded is kept (a failed exchange would come back as context for later
questions); a cached answer was kept when it was first given; the ``[memory]`` auto-save filters
decide which messages are worth a memory at all. The memory's provenance is engage's source refs.
"""

from __future__ import annotations

import logging

from edge_agent.agent.ports import MemorySource, records
from edge_agent.agent.state import AgentState
from edge_agent.agent.turn import TurnResult
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError
from edge_agent.jsontypes import JsonObject

log = logging.getLogger(__name__)


def reflect(memory: MemorySource | None, state: AgentState | None, settings: Settings, message: str,
            result: TurnResult, session: str) -> None:
    """Keep the exchange as conversation memory (with the auto_save filters), provenance = engage's refs."""
    # Failed exchanges are not kept: they would come back as context for later questions; a cached
    # answer was kept when it was first given.
    if memory is None or not settings.memory.auto_save or not result.succeeded or result.cached:
        return
    from edge_agent.memory import should_auto_save

    if not should_auto_save("user_msg", message):
        return
    limit = settings.memory.max_content_bytes // 2
    content = f"User: {message[:limit // 2]}\nAssistant: {result.response[:limit // 2]}"
    capture: JsonObject = {"type": "summary", "title": " ".join(message.split())[:120], "content": content,
                           "category": "conversation", "importance": 0.3, "tags": ["agent-exchange"]}
    try:
        stored = memory.reflect(session, result.response, captures=[capture], source_refs=result.source_krefs)
    except EdgeAgentError as exc:
        log.warning("the exchange was not stored in memory: %s", exc)
        return
    if state is not None:
        for cap in records(stored, "captures"):
            state.note_exchange(message, str(cap["entry_id"]))


def finish(memory: MemorySource | None, state: AgentState | None, settings: Settings, message: str,
           result: TurnResult, session: str | None) -> None:
    """Reflect the exchange and append it to the session's history (when the turn has a session)."""
    reflect(memory, state, settings, message, result, session or "agent")
    if state is not None and session and settings.agent.max_history_messages > 0:
        state.append(session, message, result.response, settings.agent.max_history_messages)
