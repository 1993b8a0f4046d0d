"""The adapter API every bus backend implements: ``Adapter`` hands out ``I2CBus`` and ``SPIDevice`` ports
and drives GPIO lines.

Public methods validate arguments and apply the safety policy once, here; backends implement narrow
``_``-prefixed hooks and raise only errors from :mod:`edge_agent.errors` (no errno, vendor status
code or vendor exception crosses a backend boundary).

Backend hook (what :func:`edge_agent.bus.registry.open_adapter` calls): every backend module, built in
(``edge_agent.bus.sim``, ``.linux``, ``.aardvark``, ``.ftdi``) or plugged in (``edge_agent.bus.bridge``),
exposes a module-level function::

    def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> Adapter

which checks ``url.options`` with :meth:`AdapterURL.check_options` (unknown options are rejected by
name), opens the device and returns an :class:`Adapter` subclass instance. Vendor packages are
imported at the top of that backend module only, so a missing extra surfaces as ``ImportError``
when the registry imports it and becomes :class:`~edge_agent.errors.BackendUnavailable`.

A subclass implements:

* ``_i2c_buses() -> list[int]`` and ``_open_i2c(bus) -> I2CBus`` (an :class:`I2CBus` subclass
  implementing ``_read``, ``_write``, ``_write_read``, ``_probe``, ``_release``);
* ``_spi_buses() -> list[tuple[int, int]]`` and ``_open_spi(bus, cs, mode, speed_hz) -> SPIDevice``
  (implementing ``_transfer``, ``_release``);
* ``_gpio_line(pin, raw)``, ``_gpio_read(line)``, ``_gpio_write(line, value)``,
  ``_gpio_mode(line, direction, pull)``;
* ``_health() -> dict`` and ``_release()``.

Any hook may raise ``NotImplementedError`` for a port the adapter lacks; the base turns that into an
:class:`~edge_agent.errors.InvalidAddressError` that says which ports exist.

This module is the import point for backend authors: it gathers the pieces that live one module per job
(:mod:`edge_agent.bus.checks`, :mod:`edge_agent.bus.i2c`, :mod:`edge_agent.bus.spi`,
:mod:`edge_agent.bus.adapter`).
"""

from edge_agent.bus.adapter import Adapter, ReadOnlyPinError
from edge_agent.bus.checks import (
    I2C_FIRST_ADDRESS,
    I2C_LAST_ADDRESS,
    I2C_SCAN_FIRST,
    MAX_PIN_CHARS,
    PIN_CACHE_SIZE,
    SMBUS_BLOCK_MAX,
    SPI_MODES,
    Direction,
    ProbeMethod,
    ProbeState,
    Pull,
    as_bytes,
    check_address,
    check_length,
    check_register,
)
from edge_agent.bus.i2c import I2CBus, I2CDevice, ScanReport, format_scan_grid, scan_grid_cells, scan_method
from edge_agent.bus.spi import SPIDevice

__all__ = [
    "I2C_FIRST_ADDRESS", "I2C_LAST_ADDRESS", "I2C_SCAN_FIRST", "MAX_PIN_CHARS", "PIN_CACHE_SIZE", "SMBUS_BLOCK_MAX",
    "SPI_MODES", "Adapter", "Direction", "I2CBus", "I2CDevice", "ProbeMethod", "ProbeState", "Pull",
    "ReadOnlyPinError", "SPIDevice", "ScanReport", "as_bytes", "check_address", "check_length", "check_register",
    "format_scan_grid", "scan_grid_cells", "scan_method",
]
