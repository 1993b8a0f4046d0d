"""Driver tests run against the simulated board."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.sim import SimAdapter


@pytest.fixture
def sim() -> Iterator[SimAdapter]:
    """A simulated NUCLEO-F401RE with the default scenario."""
    adapter = open_adapter("sim://nucleo-f401re")
    assert isinstance(adapter, SimAdapter)
    yield adapter
    adapter.close()
