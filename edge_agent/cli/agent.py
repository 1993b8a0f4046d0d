"""`edge-agent agent` (the command lives with the agent: edge_agent.agent.cli)."""

from __future__ import annotations

from edge_agent.agent.cli import register

__all__ = ["register"]
