"""``connect(state_dir)``: the service actions of a state directory, wherever they run.

While a daemon serves the state directory it owns the hardware and the databases, and the actions
run there (:class:`~edge_agent.hub.client.SocketServices`, standard library only). With no daemon
they run in this process (:class:`LocalOps`) against resources opened for the one call. A daemon
that runs but cannot be reached is an error (DaemonUnreachableError), never a reason to open the
hardware behind its back. Both objects have the same interface: ``call(name, args) -> JSON``,
``close()``, and errors raised as the same edge_agent types with their hints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from edge_agent.hub.client import SocketServices, find_client

if TYPE_CHECKING:
    from edge_agent.config import Settings


class Services(Protocol):
    """The actions of one state directory by name: JSON arguments in, the result's JSON out."""

    def call(self, name: str, args: dict[str, Any], *, timeout: float | None = ...) -> Any: ...

    def close(self) -> None: ...


class LocalOps:
    """The actions (and the CLI operations not yet defined as actions) run in this process."""

    def __init__(self, settings: Settings, state_dir: Path) -> None:
        from edge_agent.hub.ops import DirectContext

        self.context = DirectContext(settings, Path(state_dir))

    @property
    def state_dir(self) -> Path:
        return self.context.state_dir

    def call(self, name: str, args: dict[str, Any], *, timeout: float | None = None) -> Any:
        from edge_agent.hub import ops

        return ops.run(self.context, name, args)

    def close(self) -> None:
        pass

    def __enter__(self) -> LocalOps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(state_dir: Path, settings: Settings | Callable[[], Settings]) -> SocketServices | LocalOps:
    """The daemon's actions when one serves ``state_dir``, else the actions in this process.

    ``settings`` (or a function returning them) is used only in this process: a routed call neither
    loads the configuration nor imports pydantic.
    """
    client = find_client(Path(state_dir))
    if client is not None:
        return SocketServices(client)
    # Only the in-process path writes the state directory: a member of the daemon's group reaches the
    # socket in a directory it may enter but not write.
    from edge_agent.paths import ensure_state_dir

    ensure_state_dir(Path(state_dir))
    return LocalOps(settings() if callable(settings) else settings, Path(state_dir))


__all__ = ["LocalOps", "Services", "connect"]
