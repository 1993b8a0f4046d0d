"""Adapter URL scheme -> backend module, and :func:`open_adapter`.

Each scheme maps to a module and the pip extra that installs its vendor package. The module exposes
the backend hook documented in :mod:`edge_agent.bus.base`::

    def open_url(url: AdapterURL, *, name: str, board: str | None, safety: SafetyPolicy) -> Adapter

Any URL can be prefixed with ``trace+`` (``trace+linux://?i2c=1``) to record and log every transaction
(:mod:`edge_agent.bus.trace`). Third-party backends can add schemes through the ``edge_agent.bus_backends``
entry-point group (``scheme = "package.module"``); built-in schemes cannot be overridden.

"Unknown scheme" (:class:`~edge_agent.errors.InvalidAdapterURL`) and "known scheme whose extra is
not installed" (:class:`~edge_agent.errors.BackendUnavailable`, naming the ``pip install`` that fixes
it) are different errors.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType

from edge_agent.bus.base import Adapter
from edge_agent.bus.gpio_grants import PinSource
from edge_agent.bus.safety import SafetyPolicy, SafetyRules
from edge_agent.bus.url import GRAMMAR, AdapterURL
from edge_agent.errors import BackendUnavailable, InvalidAdapterURL

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Backend:
    """Where a scheme's code lives and which extra installs its vendor package (None: base install)."""

    scheme: str
    module: str
    extra: str | None
    summary: str


BUILTIN: dict[str, Backend] = {
    b.scheme: b
    for b in (
        Backend("sim", "edge_agent.bus.sim", None, "simulated board described by scenario data"),
        Backend("linux", "edge_agent.bus.linux", "linux", "/dev/i2c-*, /dev/spidev*, GPIO chips (smbus2, spidev, "
                "gpiozero+lgpio)"),
        Backend("aardvark", "edge_agent.bus.aardvark", "aardvark", "Total Phase Aardvark I2C/SPI host adapter"),
        Backend("ftdi", "edge_agent.bus.ftdi", "ftdi", "FTDI FT232H/FT2232H MPSSE adapter (pyftdi)"),
        Backend("bridge", "edge_agent.bus.bridge", "bridge", "microcontroller running firmware_bridge over serial"),
    )
}


def backends() -> dict[str, Backend]:
    """Every known scheme: built-ins plus ``edge_agent.bus_backends`` entry points."""
    found = dict(BUILTIN)
    eps: Iterable[importlib.metadata.EntryPoint]
    try:
        eps = importlib.metadata.entry_points(group="edge_agent.bus_backends")
    except Exception:  # noqa: BLE001 - broken metadata must not break the built-in schemes
        eps = ()
    for ep in eps:
        if ep.name not in found:
            found[ep.name] = Backend(ep.name, ep.value, None, f"plug-in from {ep.value}")
    return found


def load_backend(scheme: str) -> ModuleType:
    """Import the backend module of ``scheme``, turning a missing vendor package into BackendUnavailable."""
    table = backends()
    entry = table.get(scheme)
    if entry is None:
        raise InvalidAdapterURL(f"unknown adapter scheme {scheme!r}; known: {', '.join(sorted(table))} (each "
                                f"also as trace+SCHEME); expected {GRAMMAR}")
    try:
        module = importlib.import_module(entry.module)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or "an optional package"
        if missing == entry.module or entry.module.startswith(f"{missing}."):
            raise BackendUnavailable(
                f"{scheme}:// is not available in this installation ({entry.module} is missing)"
            ) from exc
        fix = f"pip install 'edge-agent[{entry.extra}]'" if entry.extra else "reinstall edge-agent"
        raise BackendUnavailable(f"{scheme}:// needs the Python package {missing!r}; install it with: {fix}") from exc
    if not callable(getattr(module, "open_url", None)):
        raise BackendUnavailable(f"{scheme}:// backend {entry.module} does not define open_url()")
    return module


def open_adapter(
    url: str | AdapterURL,
    *,
    name: str | None = None,
    safety: SafetyRules | SafetyPolicy | None = None,
    board: str | None = None,
    pins: PinSource = None,
) -> Adapter:
    """Open the adapter that ``url`` names.

    Args:
        url: adapter URL, e.g. ``sim://nucleo-f401re`` or ``linux://?i2c=1``.
        name: adapter name used in messages and to pick its ``[hardware.safety.adapters.<name>]``.
        safety: the ``[hardware.safety]`` section (or a resolved policy); None = defaults (simulator
            writable, real adapters read-only except allow-listed writes).
        board: board id for pin-name resolution when the URL does not imply one (``linux://`` on a Pi).
        pins: the pin index of the configured datasheets (or a function building it), used to resolve
            ``writable_gpio`` names the board file does not define; None = the bundled datasheets. The
            entries are resolved once, here, and stay fixed for the adapter's life.

    Raises:
        InvalidAdapterURL: malformed URL, unknown scheme or unknown option.
        BackendUnavailable: the scheme's optional dependency is not installed.
        AdapterUnavailableError: the device is absent or busy.
        ConfigError: a ``writable_gpio`` entry does not resolve to one line of this adapter.
    """
    parsed = url if isinstance(url, AdapterURL) else AdapterURL.parse(url)
    if parsed.scheme.startswith("trace+"):
        # trace+URL: the inner adapter does all the work; the wrapper records and logs each transaction.
        from edge_agent.bus.trace import TraceAdapter

        inner = open_adapter(str(parsed)[len("trace+"):], name=name, safety=safety, board=board, pins=pins)
        return TraceAdapter(parsed, inner)
    module = load_backend(parsed.scheme)
    adapter_name = name or str(parsed)
    policy = safety if isinstance(safety, SafetyPolicy) else SafetyPolicy.for_adapter(
        safety, name=name or parsed.scheme, scheme=parsed.scheme
    )
    adapter: Adapter = module.open_url(parsed, name=adapter_name, board=board, safety=policy)
    try:
        adapter.fix_gpio_grants(pins)
    except BaseException:
        adapter.close()
        raise
    log.debug("opened %r", adapter)
    return adapter
