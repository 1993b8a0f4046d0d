"""Assemble an Agent for one configuration and state directory: index, memory, tools, providers.

While a daemon serves the state directory it owns the memory store, the response cache and the
datasheet index: the agent reaches them through its socket and opens none of them. With no daemon
they are opened here, as the daemon would open them. ``edge_agent.hub.connect`` decides which.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from edge_agent.agent.loop import Agent
from edge_agent.agent.provider import ProviderChain
from edge_agent.agent.sources import ServiceHardware, ServiceMemory
from edge_agent.agent.state import AgentState
from edge_agent.config import Settings
from edge_agent.hub.connect import connect


@contextlib.contextmanager
def open_agent(settings: Settings, state_dir: Path) -> Iterator[Agent]:
    """The agent with its hardware context, memory, tool caller and providers; all closed after.

    Memory, the response cache, the hardware context and the tools all come from one
    ``connect(state_dir)``: the daemon's when one runs, else opened in this process at first use. A
    datasheet index or memory store that cannot be opened is left out with a warning when the turn asks
    for it (the agent still answers, with less context); the tool caller reports its own failures per call.
    """
    state_dir = Path(state_dir)
    services = connect(state_dir, settings, keep=True)
    try:
        memory = ServiceMemory(services, settings) if settings.memory.backend != "none" else None
        agent_state = AgentState(state_dir, settings.kumiho.secret_policy)
    except BaseException:
        services.close()
        raise
    try:
        agent = Agent(settings, hardware=ServiceHardware(services), memory=memory, caller=services,
                      chain=ProviderChain(settings, probes=agent_state), state=agent_state)
        try:
            yield agent
        finally:
            agent.close()
    finally:
        agent_state.close()
        services.close()
