"""The sentences a tool call's failure is told in, defined in :mod:`edge_agent.hub.messages`."""

from edge_agent.hub.messages import for_agent, invalid_arguments, sent, unknown_arguments

__all__ = ["for_agent", "invalid_arguments", "sent", "unknown_arguments"]
