"""A Pi user's button script: gpiozero Button on the header chip through lgpio, counting edges.

    python button.py CHIP LINE RESULT_JSON

Writes RESULT_JSON.parent/button.ready once listening; stops when button.stop appears there.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from gpiozero import Button
from gpiozero.pins.lgpio import LGPIOFactory

chip, line, result = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
counts = {"pressed": 0, "released": 0}
factory = LGPIOFactory(chip=chip)
# The pull comes from outside (the simulated board), so request no bias: active high.
button = Button(line, pull_up=None, active_state=True, bounce_time=None, pin_factory=factory)


def pressed() -> None:
    counts["pressed"] += 1


def released() -> None:
    counts["released"] += 1


button.when_pressed = pressed
button.when_released = released
(result.parent / "button.ready").touch()
deadline = time.monotonic() + 120
while not (result.parent / "button.stop").exists() and time.monotonic() < deadline:
    time.sleep(0.2)
time.sleep(0.5)
result.write_text(json.dumps(counts))
button.close()
factory.close()
