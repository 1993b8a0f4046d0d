"""Fixtures for the memory cache tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_agent.config import Settings, parse_settings
from edge_agent.memory import MemoryStore


def make_settings(**memory: object) -> Settings:
    """Settings with [memory] overrides (policy keys go under memory['policy'])."""
    return parse_settings({"memory": memory})


@pytest.fixture
def store(state: Path) -> Iterator[MemoryStore]:
    """A store with default settings in a fresh state directory."""
    s = MemoryStore.open(state, Settings())
    yield s
    s.close()
