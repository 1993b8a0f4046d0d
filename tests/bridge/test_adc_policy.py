"""An ADC conversion on the firmware behind bridge:// switches the pad to analog mode, so a read-only adapter
must not be able to stop a driven output (the LED on D13) by asking for a conversion on it."""

from __future__ import annotations

from typing import Any

import pytest

from edge_agent.bus import open_adapter
from edge_agent.config import SafetyConfig
from edge_agent.errors import WriteRefusedError

WRITABLE = SafetyConfig.model_validate({"adapters": {"bridge": {"read_only": False}}})


def test_an_adc_conversion_in_read_only_mode_leaves_a_driven_output_driven(host_fw: Any) -> None:
    url = f"bridge://{host_fw.path}?timeout_scale=5"
    bench = open_adapter(url, safety=WRITABLE)
    bench.gpio_write("D13", 1)  # D13 is PA5, the green LED, which also has an ADC channel
    assert bench.gpio_read("D13") == 1
    bench.close()
    locked = open_adapter(url, safety=SafetyConfig(read_only=True))
    try:
        with pytest.raises(WriteRefusedError):
            locked.adc_read("D13")
    finally:
        locked.close()
    bench = open_adapter(url, safety=WRITABLE)
    assert bench.gpio_read("D13") == 1  # still driven high
    bench.close()
