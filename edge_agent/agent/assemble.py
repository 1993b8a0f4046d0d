"""Assemble an Agent for one configuration and state directory: index, memory, tools, providers.

While a daemon serves the state directory it owns the memory store, the response cache and the
datasheet index: the agent reaches them through its socket and opens none of them. With no daemon
they are opened here, as the daemon would open them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_agent.agent.caller import LazyToolCaller
from edge_agent.agent.loop import Agent
from edge_agent.agent.provider import ProviderChain
from edge_agent.agent.sources import DaemonHardware, DaemonMemory, LocalHardware
from edge_agent.agent.state import AgentState
from edge_agent.config import Settings
from edge_agent.errors import EdgeAgentError

log = logging.getLogger(__name__)


@contextlib.contextmanager
def open_agent(settings: Settings, state_dir: Path) -> Iterator[Agent]:
    """The agent with its hardware context, memory, tool caller and providers; all closed after.

    A datasheet index or memory store that cannot be opened is left out with a warning (the agent
    still answers, with less context); the tool caller reports its own failures per call.
    """
    from edge_agent.hub.client import find_client

    state_dir = Path(state_dir)
    client = find_client(state_dir)
    hardware: Any
    memory: Any
    if client is not None:
        hardware = DaemonHardware(client)
        memory = DaemonMemory(client, settings) if settings.memory.backend != "none" else None
    else:
        rag = _open_rag(settings, state_dir)
        hardware = LocalHardware(rag) if rag is not None else None
        memory = _open_memory(settings, state_dir)
    caller = LazyToolCaller(settings, state_dir)
    agent_state = AgentState(state_dir, settings.kumiho.secret_policy)
    agent = Agent(settings, hardware=hardware, memory=memory, caller=caller,
                  chain=ProviderChain(settings, probes=agent_state), state=agent_state)
    try:
        yield agent
    finally:
        agent.close()
        caller.close()
        agent_state.close()
        for part in (memory, hardware):
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
        from edge_agent.hub.ops import open_memory_store

        return open_memory_store(state_dir, settings)
    except (EdgeAgentError, OSError) as exc:
        log.warning("memory left out of the turn: %s", exc)
        return None
