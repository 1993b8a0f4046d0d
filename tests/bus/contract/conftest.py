"""The contract suite's ``bench`` fixture: one adapter per target, with the wiring it is known to have.

Without options the suite runs against ``sim://`` and, through fakes at the vendor boundary,
``linux://``, ``aardvark://`` and ``ftdi://`` (I2C and SPI modes). With ``--bus-url URL`` (repeatable)
it runs against real adapters instead; ``--bus-gpio-loop OUT,IN``, ``--bus-spi-loop BUS.CS`` and
``--bus-board`` describe the bench wiring (docs/adapters.md, "Contract suite on a bench"). Writes on real adapters are
allowed only to what the suite needs: the EEPROM at 0x50, the BME280's two control registers, the
looped GPIO pair and SPI device.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from edge_agent.bus import Adapter, open_adapter
from edge_agent.bus.url import AdapterURL
from edge_agent.config import AdapterSafety, SafetyConfig

BUILTIN_TARGETS = ["sim", "linux", "aardvark", "ftdi-i2c", "ftdi-spi"]
BENCH_SCENARIO = Path(__file__).resolve().parent / "bench.toml"


@dataclass
class Bench:
    """An open adapter plus what is wired to it."""

    id: str
    adapter: Adapter
    gpio_loop: tuple[str, str] | None
    spi_loop: tuple[int, int] | None
    strict: bool  # built-in targets must have every part; a real bench may lack some (tests skip)
    env: Any = None

    def require_i2c(self) -> None:
        if not self.adapter.capabilities()["i2c"]:
            pytest.skip(f"{self.id} has no I2C bus in this configuration")

    def require_part(self, address: int) -> None:
        self.require_i2c()
        if not self.strict and not self.adapter.i2c().probe(address):
            pytest.skip(f"no part at 0x{address:02X} on the bench")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "bench" in metafunc.fixturenames:
        urls = metafunc.config.getoption("bus_url")
        targets = [f"url:{u}" for u in urls] if urls else BUILTIN_TARGETS
        metafunc.parametrize("bench", targets, indirect=True, ids=[t.removeprefix("url:") for t in targets])


def _safety(scheme: str, gpio: tuple[str, str] | None, spi: tuple[int, int] | None) -> SafetyConfig:
    return SafetyConfig(adapters={scheme: AdapterSafety(
        writable_i2c=["0x50", "0x76:0xF2", "0x76:0xF4"],  # EEPROM; BME280 ctrl_hum/ctrl_meas for forced mode
        writable_gpio=list(gpio) if gpio else [],  # the looped pair: the input is set to an input, also a write
        writable_spi=[f"{spi[0]}.{spi[1]}"] if spi else [],
    )})


@pytest.fixture
def bench(request: pytest.FixtureRequest) -> Iterator[Bench]:
    target: str = request.param
    if target.startswith("url:"):
        yield from _real_bench(request, target[4:])
        return
    yield from _builtin(request, target)


def _builtin(request: pytest.FixtureRequest, target: str) -> Iterator[Bench]:
    env: Any = None
    if target == "sim":
        adapter = open_adapter(f"sim://nucleo-f401re?scenario={BENCH_SCENARIO}")
        gpio, spi = ("D2", "D3"), (1, 1)
    elif target == "linux":
        env = request.getfixturevalue("linux_env")
        gpio, spi = ("GPIO20", "GPIO21"), (0, 1)
        adapter = open_adapter("linux://?i2c=1&spi=0.0,0.1&board=rpi-4b", safety=_safety("linux", gpio, spi))
        # J8-38 (GPIO20) jumpered to J8-40 (GPIO21), in gpiozero's mock world.
        from gpiozero.pins.mock import MockConnectedPin

        factory = adapter._factory()  # type: ignore[attr-defined]
        factory.pin(20, pin_class=MockConnectedPin, input_pin=factory.pin(21))
    elif target == "aardvark":
        env = request.getfixturevalue("aardvark_env")
        gpio, spi = None, (0, 0)
        adapter = open_adapter("aardvark://2237-170206", safety=_safety("aardvark", None, spi))
    elif target == "ftdi-i2c":
        env = request.getfixturevalue("ftdi_env")
        gpio, spi = ("AD4", "AD5"), None
        env.bench.gpio_jumpers[1 << 5] = 1 << 4
        adapter = open_adapter("ftdi://ftdi:232h/1", safety=_safety("ftdi", gpio, spi))
    elif target == "ftdi-spi":
        env = request.getfixturevalue("ftdi_env")
        gpio, spi = ("AD6", "AD7"), (0, 1)
        env.bench.gpio_jumpers[1 << 7] = 1 << 6
        adapter = open_adapter("ftdi://ftdi:232h/1?mode=spi&cs_count=2", safety=_safety("ftdi", gpio, spi))
    else:  # pragma: no cover
        raise AssertionError(target)
    yield Bench(target, adapter, gpio, spi, strict=True, env=env)
    adapter.close()


def _real_bench(request: pytest.FixtureRequest, url: str) -> Iterator[Bench]:
    cfg = request.config
    loop = cfg.getoption("bus_gpio_loop")
    gpio = tuple(loop.split(",", 1)) if loop else None
    spi_opt = cfg.getoption("bus_spi_loop")
    spi = (int(spi_opt.split(".")[0]), int(spi_opt.split(".")[1])) if spi_opt else None
    scheme = AdapterURL.parse(url).scheme
    adapter = open_adapter(url, safety=_safety(scheme, gpio, spi),
                           board=cfg.getoption("bus_board") or None)
    yield Bench(url, adapter, gpio, spi, strict=False)  # type: ignore[arg-type]
    adapter.close()
