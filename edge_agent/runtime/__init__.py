"""The composition root: every component built from Settings and a state directory.

``Runtime.build`` assembles the datasheet index (HardwareRag), one bus adapter per
``[[peripherals.boards]]`` entry, the memory store (with the sync outbox as its capture sink when
``[kumiho] enabled``), the sync worker and the watch runner. A component that is missing (extra not
installed) or fails to start is logged and recorded, and the rest keeps working: an agent sees the
reason in ``runtime_status`` and in the error of the tool that needs it.

Every bus transaction runs under its adapter slot's lock, so a shutdown or reload waits for the
transaction in flight and never closes a device under it.

The package is laid out by job: ``build`` (components from settings), ``pool`` (adapter slots),
``jobs`` (background threads and periodic jobs), ``status`` (what status reports) and ``core`` (the
Runtime that holds them and runs their lifecycle). Import the names from ``edge_agent.runtime``.
"""

from __future__ import annotations

from edge_agent.bus.pool import AdapterSlot
from edge_agent.runtime.components import Component, ComponentUnavailable, datasheet_fingerprint
from edge_agent.runtime.core import Runtime
from edge_agent.runtime.jobs import HYGIENE_EVERY_S, JOIN_TIMEOUT_S, REINDEX_CHECK_S

__all__ = [
    "HYGIENE_EVERY_S",
    "JOIN_TIMEOUT_S",
    "REINDEX_CHECK_S",
    "AdapterSlot",
    "Component",
    "ComponentUnavailable",
    "Runtime",
    "datasheet_fingerprint",
]
