"""Assemble an Agent for one configuration and state directory: index, memory, tools, providers."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_agent.agent.caller import LazyToolCaller
from edge_agent.agent.loop import Agent
from edge_agent.agent.provider import ProviderChain
from edge_agent.agent.state import AgentState
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError

log = logging.getLogger(__name__)


@contextlib.contextmanager
def open_agent(settings: Settings, state_dir: Path) -> Iterator[Agent]:
    """The agent with its datasheet index, memory store, tool caller and providers; all closed after.

    A datasheet index or memory store that cannot be opened is left out with a warning (the agent
    still answers, with less context); the tool caller reports its own failures per call.
    """
    state_dir = Path(state_dir)
    rag = _open_rag(settings, state_dir)
    memory = _open_memory(settings, state_dir)
    caller = LazyToolCaller(settings, state_dir)
    agent_state = AgentState(state_dir)
    agent = Agent(settings, rag=rag, memory=memory, caller=caller, chain=ProviderChain(settings), state=agent_state)
    try:
        yield agent
    finally:
        agent.close()
        caller.close()
        agent_state.close()
        for part in (memory, rag):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.close()


def _open_rag(settings: Settings, state_dir: Path) -> Any:
    try:
        from edge_agent.rag import HardwareRag

        return HardwareRag.load(settings.datasheet_dir(), index_dir=state_dir / "rag",
                                compact=settings.agent.compact_context)
    except (EdgeAgentError, OSError) as exc:
        log.warning("datasheets left out of the prompt: %s", exc)
        return None


def _open_memory(settings: Settings, state_dir: Path) -> Any:
    """The memory store as the daemon opens it: with [kumiho] enabled, captures also go to the outbox."""
    if settings.memory.backend == "none":
        return None
    try:
        from edge_agent.memory import MemoryStore

        sink = None
        if settings.kumiho.enabled:
            from edge_agent.sync import OutboxSink

            sink = OutboxSink(settings, state_dir)
        return MemoryStore.open(state_dir, settings, capture_sink=sink)
    except (EdgeAgentError, OSError) as exc:
        log.warning("memory left out of the turn: %s", exc)
        return None
