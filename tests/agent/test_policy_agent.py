"""The write policy through the agent's tools: a scripted model asks for writes the policy does not allow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edge_agent.agent.assemble import open_agent
from edge_agent.bus.sim.world import GPIOMode, GPIOWrite
from edge_agent.config import load_settings

POLICY = '[hardware.safety.adapters.sim]\nwritable_i2c = ["0x50:0x00"]\nwritable_gpio = ["LD2"]'


def _results(request: dict[str, Any]) -> list[str]:
    """The tool results sent back to the model, as text (however the prompt frames them)."""
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_the_agent_cannot_write_past_a_register_or_drive_an_unlisted_line(model: Any, steps: Any, tmp_path: Path,
                                                                          state: Path) -> None:
    config = steps.write_config(tmp_path / "c.toml", model, POLICY)
    model.script = [
        steps.call(("i2c_write", {"addr": "0x50", "register": 0, "bytes": [0xA1, 0xA2, 0xA3, 0xA4]}),
                   ("gpio_write", {"pin": "D7", "value": 1}),
                   ("gpio_write", {"pin": "13", "value": 1})),
        steps.say("Done what the policy allows."),
    ]
    with open_agent(load_settings(config), state) as agent:
        result = agent.turn("fill the eeprom and switch the relay on D7 and the led")
        sim = agent.caller.runtime.adapters["nucleo-f401re"].adapter
        assert sim.world.device(0x50).regs[:4] == b"\xff" * 4
        driven = {t.pin for t in sim.log if isinstance(t, GPIOWrite | GPIOMode)}
    assert driven == {"PA5"}  # 13 is D13 = PA5 = LD2; D7 was refused
    results = _results(model.requests[1])
    assert "0x50:0x00-0x03" in results[0] and "writable_gpio" in results[1] and "error" not in results[2]
    # Each call is stated from its result: the two refusals with the policy key, then the write that ran.
    lines = result.response.splitlines()
    assert lines[0].startswith("Refused, not done: i2c_write at 0x50: refused to write I2C target 0x50")
    assert lines[1].startswith("Refused, not done: gpio_write D7 = 1:") and "writable_gpio" in lines[1]
    assert lines[2:] == ["Done: pin 13 (= PA5, LED LD2) set to 1 (high).", "Done what the policy allows."]
