"""Pin names from outside are bounded: length capped, spellings cache bounded, errors echo a short prefix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus import open_adapter
from edge_agent.bus.base import MAX_PIN_CHARS, PIN_CACHE_SIZE
from edge_agent.errors import ECHO_CHARS, InvalidAddressError, UnknownPinError


@pytest.fixture
def sim() -> Any:
    adapter = open_adapter("sim://nucleo-f401re", name="nucleo-f401re")
    yield adapter
    adapter.close()


def test_the_spelling_cache_stays_bounded_however_many_spellings_resolve(sim: Any) -> None:
    spellings = [" " * i + "PA5" + " " * j for i in range(49) for j in range(49)]  # 2,401 ways to write PA5
    assert all(sim.resolve_pin(s)[0] == "PA5" for s in spellings)
    assert len(sim._pins) <= PIN_CACHE_SIZE
    assert sim.resolve_pin(spellings[-1])[0] == "PA5" and sim.resolve_pin("D13")[0] == "PA5"


def test_a_pin_name_over_the_cap_is_refused_before_any_lookup_and_not_kept(sim: Any) -> None:
    huge = " " * 3_000_000 + "PA5"  # resolves to PA5 once stripped: the cache used to keep all 3 MB
    with pytest.raises(InvalidAddressError) as info:
        sim.gpio_read(huge)
    assert len(str(info.value)) < 300 and str(MAX_PIN_CHARS) in str(info.value)
    assert huge not in sim._pins
    assert sim.resolve_pin(" " * (MAX_PIN_CHARS - 3) + "PA5")[0] == "PA5"  # at the cap: still a pin name


def test_an_unknown_name_is_echoed_as_a_short_prefix(sim: Any) -> None:
    name = "no_such_pin_" + "x" * 80
    with pytest.raises(UnknownPinError) as info:
        sim.gpio_read(name)
    text = str(info.value)
    assert name not in text and name[:ECHO_CHARS] in text and f"({len(name)} characters)" in text


def test_every_tool_caps_pin_arguments_in_its_schema(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (extra 'mcp') is not installed")
    import inspect

    from edge_agent.mcp.tools import TOOL_NAMES, PinArg, Tools
    from edge_agent.runtime import Runtime

    pin_args = [(name, p.name) for name in TOOL_NAMES
                for p in inspect.signature(getattr(Tools, name), eval_str=True).parameters.values()
                if p.annotation is PinArg]
    assert {t for t, _ in pin_args} == {"gpio_read", "gpio_write", "pin_resolve"}
    from edge_agent.config import Settings
    from edge_agent.mcp.server import tool_schemas

    rt = Runtime(Settings(), tmp_path)  # not built: binding the tools needs no component
    schemas = {s["name"]: s["input_schema"] for s in tool_schemas(rt)}
    for tool, arg in pin_args:
        branches = schemas[tool]["properties"][arg]["anyOf"]
        strings = [b for b in branches if b.get("type") == "string"]
        assert strings and all(b.get("maxLength") == MAX_PIN_CHARS for b in strings), (tool, arg)
