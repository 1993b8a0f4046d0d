"""edge_agent: an offline-first runtime that lets AI agents work with real hardware boards safely."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
