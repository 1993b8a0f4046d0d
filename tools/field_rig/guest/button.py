"""Count a line's edges through one software layer while the rig changes its pull from outside.

    python button.py MODE CHIP LINE RESULT_JSON

MODE is ``gpiozero`` (a Pi user's script: gpiozero's Button on the lgpio pin factory) or ``lgpio``
(lgpio's own alert and callback, the layer gpiozero sits on). Writes RESULT_JSON.parent/MODE.ready
once listening; stops when MODE.stop appears there, then writes the counts and the levels seen.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

mode, chip, line, result = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
counts: dict[str, Any] = {"pressed": 0, "released": 0, "levels": []}
closers: list[Any] = []

if mode == "gpiozero":
    from gpiozero import Button
    from gpiozero.pins.lgpio import LGPIOFactory

    factory = LGPIOFactory(chip=chip)
    # The pull comes from outside (the simulated board), so request no bias: active high.
    button = Button(line, pull_up=None, active_state=True, bounce_time=None, pin_factory=factory)

    def pressed() -> None:
        counts["pressed"] += 1
        counts["levels"].append(1)

    def released() -> None:
        counts["released"] += 1
        counts["levels"].append(0)

    button.when_pressed = pressed
    button.when_released = released
    closers += [button, factory]
else:
    import lgpio

    handle = lgpio.gpiochip_open(chip)
    lgpio.gpio_claim_alert(handle, line, lgpio.BOTH_EDGES)

    def changed(_chip: int, _gpio: int, level: int, _tick: int) -> None:
        counts["pressed" if level == 1 else "released"] += 1
        counts["levels"].append(level)

    callback = lgpio.callback(handle, line, lgpio.BOTH_EDGES, changed)

(result.parent / f"{mode}.ready").touch()
deadline = time.monotonic() + 120
while not (result.parent / f"{mode}.stop").exists() and time.monotonic() < deadline:
    time.sleep(0.2)
time.sleep(0.5)
result.write_text(json.dumps(counts))
if mode == "gpiozero":
    for obj in closers:
        obj.close()
else:
    callback.cancel()
    lgpio.gpiochip_close(handle)
