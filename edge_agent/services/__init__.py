"""One door per action: every thing the device can do is defined once, here, and every face stands on it.

An action (:mod:`.core`) has a pydantic input model, a result model, and a function of
(:class:`~.core.Resources`, input) that applies the safety policy through the adapters, records the
audit capture of a write and raises errors from the edge_agent tree. The MCP tools, the daemon's
socket operations, the CLI commands and the agent's tools are faces bound to the actions by name.
``edge_agent.hub.connect`` gives a face the actions of the daemon serving a state directory (over
its socket, errors re-raised as the same types) or, with no daemon, run in the face's own process.

This package's ``__init__`` imports nothing: a routed CLI command must not pay for pydantic.
"""
