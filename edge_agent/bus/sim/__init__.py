"""``sim://BOARD[?scenario=NAME_OR_FILE]``: a simulated board, with no extra dependency.

The board's GPIO lines come from ``boards/<BOARD>.toml`` (LEDs drive, buttons can be pressed); its
I2C and SPI parts, wires and scripted faults come from a scenario (bundled ``default`` unless named).
Every transaction is recorded in ``adapter.log``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from edge_agent.bus.base import Adapter, Direction, I2CBus, ProbeMethod, Pull, ReadOnlyPinError, SPIDevice
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.sim.devices import BME280Sim, SimI2CDevice
from edge_agent.bus.sim.world import (
    SCENARIO_DIR,
    FaultEntry,
    Scenario,
    SimWorld,
    load_scenario,
    scenario_path,
)
from edge_agent.bus.transactions import Transaction
from edge_agent.bus.url import AdapterURL
from edge_agent.errors import InvalidAdapterURL, NextStep
from edge_agent.paths import private_dir, write_private

__all__ = ["SCENARIO_DIR", "SimAdapter", "SimWorld", "Scenario", "load_scenario", "open_url", "scenario_path"]

log = logging.getLogger(__name__)

OPTIONS = ("scenario",)


class SimI2C(I2CBus):
    """An I2C bus of the simulated board."""

    max_transfer = 4096

    def __init__(self, adapter: SimAdapter, bus: int) -> None:
        super().__init__(adapter, bus, frequency_hz=400_000)
        self.world = adapter.world

    def _read(self, address: int, n: int) -> bytes:
        return self.world.i2c_read(self.adapter.url, self.bus, address, n)

    def _write(self, address: int, data: bytes) -> None:
        self.world.i2c_write(self.adapter.url, self.bus, address, data)

    def _write_read(self, address: int, data: bytes, n: int) -> bytes:
        return self.world.i2c_write_read(self.adapter.url, self.bus, address, data, n)

    def _probe(self, address: int, method: ProbeMethod) -> bool:
        from edge_agent.errors import I2CNackError

        try:
            if method == "read":
                self.world.i2c_read(self.adapter.url, self.bus, address, 1)
            else:
                self.world.i2c_write(self.adapter.url, self.bus, address, b"")
        except I2CNackError:
            return False
        return True


class SimSPI(SPIDevice):
    """A chip select of the simulated board."""

    def _transfer(self, data: bytes) -> bytes:
        adapter = self.adapter
        assert isinstance(adapter, SimAdapter)
        return adapter.world.spi_transfer(adapter.url, self.bus, self.cs, data, self.mode)


class SimAdapter(Adapter):
    """A simulated board; ``world`` holds its parts, ``log`` every transaction."""

    scheme = "sim"

    def __init__(self, url: AdapterURL, *, name: str | None, board: str, safety: SafetyPolicy,
                 scenario: Scenario) -> None:
        super().__init__(url, name=name, board=board, safety=safety)
        from edge_agent.pins import get_board

        self.board_info = get_board(board)
        self.world = SimWorld(scenario, board=self.board_info)
        self._state_path: Path | None = None

    # state kept between processes -----------------------------------------------------------------
    def attach_state(self, state_dir: Path) -> None:
        """Continue from the board state saved under ``state_dir`` (if any) and save it there on close.

        The file is ``<state>/sim/<board>-<digest of the URL>.json``. A separate `gpio write` and
        `gpio read` then see one board, as on real hardware. A file that cannot be read is reported
        and the board starts from its scenario.
        """
        digest = hashlib.sha1(str(self.url).encode()).hexdigest()[:10]
        self._state_path = Path(state_dir) / "sim" / f"{self.board}-{digest}.json"
        try:
            data = json.loads(self._state_path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("%s: ignoring the saved board state %s (%s); starting from the scenario",
                        self.url, self._state_path, exc)
            return
        if isinstance(data, dict):
            self.world.restore(data)

    def save_state(self) -> None:
        """Write the board state to the attached file (atomically; a no-op without one)."""
        if self._state_path is None:
            return
        path = self._state_path
        try:
            private_dir(path.parent)
            write_private(path, json.dumps(self.world.snapshot()))
        except OSError as exc:
            log.warning("%s: could not save the board state to %s: %s", self.url, path, exc)

    def _release(self) -> None:
        self.save_state()

    # test and agent helpers -----------------------------------------------------------------------
    @property
    def log(self) -> list[Transaction]:
        """Every transaction so far, oldest first."""
        return self.world.log

    def clear_log(self) -> None:
        """Forget recorded transactions."""
        self.world.log.clear()

    def device(self, address: int, bus: int | None = None) -> SimI2CDevice:
        """The simulated part at ``address`` (``sim.device(0x76).inject_anomaly(temperature_c=15)``)."""
        return self.world.device(address, bus)

    def bme280(self, address: int = 0x76) -> BME280Sim:
        """The simulated BME280 at ``address``."""
        return self.world.bme280(address)

    def inject_fault(self, **spec: Any) -> None:
        """Script a fault: ``inject_fault(error="nack", address=0x76, on="read", count=1)``."""
        self.world.add_fault(FaultEntry.model_validate(spec))

    def press(self, button: str) -> None:
        """Hold a push button down (label such as "B1", or its pin name)."""
        self.world.press(button)

    def release(self, button: str) -> None:
        """Let a push button go."""
        self.world.release(button)

    def led(self, label: str) -> int:
        """1 while the LED ``label`` (e.g. "LD2") is lit."""
        return self.world.led(label)

    # hooks -------------------------------------------------------------------------------------------
    def _i2c_buses(self) -> list[int]:
        return self.world.i2c_buses

    def _open_i2c(self, bus: int) -> I2CBus:
        return SimI2C(self, bus)

    def _spi_buses(self) -> list[tuple[int, int]]:
        return self.world.spi_devices()

    def _open_spi(self, bus: int, cs: int, mode: int, speed_hz: int) -> SPIDevice:
        return SimSPI(self, bus, cs, mode=mode, speed_hz=speed_hz)

    def _gpio_line(self, pin: Any, raw: str | int) -> Hashable:
        name = pin.name if pin is not None else str(raw)
        self.world.line(name)  # raises for a name the board lacks
        return name

    def _gpio_read(self, line: Any) -> int:
        return self.world.level(line)

    def _gpio_observe(self) -> dict[str, dict[str, Any]]:
        return {name: {"mode": line.direction, "pull": line.pull, "level": self.world.level(name)}
                for name, line in list(self.world.lines.items())}

    def _gpio_write(self, line: Any, value: int) -> None:
        self._check_drivable(line)
        self.world.gpio_write(line, value)

    def _gpio_mode(self, line: Any, direction: Direction, pull: Pull) -> None:
        if direction == "out":
            self._check_drivable(line)
        self.world.gpio_mode(line, direction, pull)

    def _check_drivable(self, line: str) -> None:
        state = self.world.line(line)
        if state.input_only:
            raise ReadOnlyPinError(
                f"{self.url}: {line} ({state.label}) is a push-button input; driving it would fight the "
                "button's pull-up, so writes to it are refused (drive an output such as an LED instead)",
                adapter=self.url, pin=line,
                hint=NextStep("to see its level", command=f"edge-agent gpio read {line} --url {self.url}",
                              tool="gpio_read", arguments={"pin": line}),
            )

    def _extra_capabilities(self) -> dict[str, Any]:
        return {
            "i2c_targets": {str(b): sorted(d) for b, d in self.world.i2c.items()},
            "leds": dict(self.board_info.leds),
            "buttons": dict(self.board_info.buttons),
        }

    def _health(self) -> dict[str, Any]:
        return {"board": self.board, "transactions": len(self.world.log)}


def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> SimAdapter:
    """Backend hook: open ``sim://BOARD[?scenario=...]``."""
    url.check_options(OPTIONS)
    target = url.target.strip("/")
    if not target:
        from edge_agent.pins import list_boards

        raise InvalidAdapterURL(f"{url}: sim:// needs a board id, e.g. sim://nucleo-f401re; boards: "
                                f"{', '.join(list_boards())}")
    if board and board != target:
        raise InvalidAdapterURL(f"{url}: the URL names board {target!r} but board={board!r} was given")
    scenario = load_scenario(url.options.get("scenario", "default"))
    return SimAdapter(url, name=name, board=target, safety=safety, scenario=scenario)
