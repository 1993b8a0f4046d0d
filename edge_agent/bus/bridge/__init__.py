"""``bridge://`` backend: a microcontroller running firmware_bridge (PROTOCOL.md) over serial.

``protocol`` is pure (no I/O, no pyserial); ``link`` owns the serial port (pyserial) with its request table
(``requests``), reader thread (``reader``), reconnect policy (``reconnect``) and port opening (``port``); ``adapter`` is
the bus-layer Adapter; ``discovery`` finds boards by USB VID:PID; ``hostsim`` runs the host build of
the firmware on a pseudo-terminal (source checkouts only). pyserial (the ``bridge`` extra) is
imported only by ``link``/``port``/``adapter``/``discovery``, so the protocol module works without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edge_agent.bus.bridge.protocol import FirmwareResetError, UnsupportedCommandError
from edge_agent.errors import BackendUnavailable

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter
    from edge_agent.bus.safety import SafetyPolicy
    from edge_agent.bus.url import AdapterURL


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> Adapter:
    """Backend hook for the registry (see :func:`edge_agent.bus.bridge.adapter.open_url`)."""
    try:
        from edge_agent.bus.bridge.adapter import open_url as _open_url
    except ImportError as exc:
        missing = exc.name or "serial"
        raise BackendUnavailable(
            f"bridge:// needs the Python package {'pyserial' if missing == 'serial' else missing!r}; "
            "install it with: pip install 'edge-agent[bridge]'") from exc
    return _open_url(url, name=name, board=board, safety=safety)


def __getattr__(name: str) -> Any:
    # BridgeAdapter and Link pull in pyserial; import them on first use only.
    if name == "BridgeAdapter":
        from edge_agent.bus.bridge.adapter import BridgeAdapter

        return BridgeAdapter
    if name == "Link":
        from edge_agent.bus.bridge.link import Link

        return Link
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BridgeAdapter", "FirmwareResetError", "Link", "UnsupportedCommandError", "open_url"]
