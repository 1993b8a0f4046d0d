"""``bridge://`` backend: a microcontroller running firmware_bridge (PROTOCOL.md) over serial.

``protocol`` is pure (no I/O); ``link`` owns the serial port (pyserial); ``adapter`` is the bus-layer
Adapter; ``discovery`` finds boards by USB VID:PID; ``hostsim`` runs the host build of the firmware
on a pseudo-terminal (source checkouts only).
"""

from edge_agent.bus.bridge.adapter import BridgeAdapter, open_url
from edge_agent.bus.bridge.link import Link
from edge_agent.bus.bridge.protocol import FirmwareResetError, UnsupportedCommandError

__all__ = ["BridgeAdapter", "FirmwareResetError", "Link", "UnsupportedCommandError", "open_url"]
