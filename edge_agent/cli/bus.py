"""`edge-agent bus|i2c|spi|gpio|sensor`: the bus layer from the command line.

Every command takes ``--url`` (any adapter URL, ``sim://BOARD`` included) or ``--adapter NAME`` (a
``[[peripherals.boards]]`` entry); with neither, the first configured board is used. Writes follow
``[hardware.safety]`` like every other caller.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from edge_agent.cli._common import int_auto, print_json, run_op, settings_from, state_from
from edge_agent.paths import state_dir

if TYPE_CHECKING:
    from edge_agent.bus.base import Adapter


def _byte(text: str) -> int:
    value = int_auto(text)
    if not 0 <= value <= 0xFF:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte (0-255 or 0x00-0xFF)")
    return value


#: The sensors with a driver (the sensor_read action's choices).
SENSORS = ("bme280",)


def _sensor(text: str) -> str:
    if text.lower() not in SENSORS:
        raise argparse.ArgumentTypeError(f"no driver for a {text!r} sensor; the drivers are: {', '.join(SENSORS)}. "
                                         "Other parts can be read with `edge-agent i2c read ADDRESS --register R`")
    return text.lower()


def _adapter_options(p: argparse.ArgumentParser, *, board: bool = True) -> None:
    # One or the other: given both, the named entry would win and the URL be ignored without a word.
    which = p.add_mutually_exclusive_group()
    which.add_argument("--url", help="adapter URL, e.g. sim://nucleo-f401re, linux://?i2c=1, aardvark://")
    which.add_argument("--adapter", metavar="NAME", help="a [[peripherals.boards]] entry by name (instead of --url)")
    if board:
        p.add_argument("--board", help="board id for pin names when the URL does not imply one (linux:// on a Pi)")
    p.add_argument("--json", action="store_true", help="print JSON")


def register(subparsers: Any) -> None:
    """Add bus, i2c, spi, gpio and sensor subcommands."""
    bus = subparsers.add_parser("bus", help="adapters: scan an I2C bus, list backends")
    bus_sub = bus.add_subparsers(dest="bus_command", metavar="ACTION", required=True)
    scan = bus_sub.add_parser("scan", help="list responding I2C addresses (i2cdetect-style safe probe)")
    _adapter_options(scan, board=False)
    scan.add_argument("--bus", type=int_auto, help="I2C bus number (default: the adapter's first bus)")
    scan.set_defaults(handler=cmd_scan)
    info = bus_sub.add_parser("info", help="capabilities, health and write policy of an adapter")
    _adapter_options(info)
    info.set_defaults(handler=cmd_info)
    schemes = bus_sub.add_parser("backends", help="adapter URL schemes and the extras they need")
    schemes.add_argument("--json", action="store_true", help="print JSON")
    schemes.set_defaults(handler=cmd_backends)

    i2c = subparsers.add_parser("i2c", help="read or write an I2C target")
    i2c_sub = i2c.add_subparsers(dest="i2c_command", metavar="ACTION", required=True)
    rd = i2c_sub.add_parser("read", help="read bytes (from a register with --register)")
    _adapter_options(rd, board=False)
    rd.add_argument("address", type=int_auto, help="7-bit target address, e.g. 0x76")
    rd.add_argument("--register", type=int_auto, help="register to start at (write pointer, repeated start)")
    rd.add_argument("--length", "-n", type=int_auto, default=1, help="bytes to read (default 1)")
    rd.add_argument("--bus", type=int_auto, help="I2C bus number (default: the adapter's first bus)")
    rd.set_defaults(handler=cmd_i2c_read)
    wr = i2c_sub.add_parser("write", help="write bytes (to a register with --register)")
    _adapter_options(wr, board=False)
    wr.add_argument("address", type=int_auto, help="7-bit target address, e.g. 0x50")
    wr.add_argument("data", type=_byte, nargs="+", help="bytes, decimal or 0x-hex")
    wr.add_argument("--register", type=int_auto, help="register to write at (sent before the data)")
    wr.add_argument("--bus", type=int_auto, help="I2C bus number (default: the adapter's first bus)")
    wr.set_defaults(handler=cmd_i2c_write)

    spi = subparsers.add_parser("spi", help="SPI transfers")
    spi_sub = spi.add_subparsers(dest="spi_command", metavar="ACTION", required=True)
    tr = spi_sub.add_parser("transfer", help="full-duplex transfer: send bytes, print what came back")
    _adapter_options(tr, board=False)
    tr.add_argument("data", type=_byte, nargs="+", help="bytes to send, decimal or 0x-hex")
    tr.add_argument("--bus", type=int_auto, help="SPI bus number (default: the adapter's first bus)")
    tr.add_argument("--cs", type=int_auto, default=0, help="chip select (default 0)")
    tr.add_argument("--mode", type=int, choices=(0, 1, 2, 3), default=0, help="SPI mode, CPOL and CPHA (default 0)")
    tr.add_argument("--speed-hz", type=int_auto, default=1_000_000, help="clock in Hz (default 1000000)")
    tr.set_defaults(handler=cmd_spi_transfer)

    gpio = subparsers.add_parser("gpio", help="read or drive a GPIO line by pin name or alias")
    gpio_sub = gpio.add_subparsers(dest="gpio_command", metavar="ACTION", required=True)
    gr = gpio_sub.add_parser("read", help="read a line's level")
    _adapter_options(gr)
    gr.add_argument("pin", help="pin name, header position or alias (PA5, D13, red_led, GPIO17)")
    gr.add_argument("--pull", choices=("up", "down", "none"), help="make the line an input with this pull first")
    gr.set_defaults(handler=cmd_gpio_read)
    gw = gpio_sub.add_parser("write", help="drive a line to 0 or 1")
    _adapter_options(gw)
    gw.add_argument("pin", help="pin name, header position or alias (PA5, D13, red_led, GPIO17)")
    gw.add_argument("value", type=int, choices=(0, 1), help="level to drive")
    gw.set_defaults(handler=cmd_gpio_write)

    sensor = subparsers.add_parser("sensor", help="read a sensor through its driver")
    sensor_sub = sensor.add_subparsers(dest="sensor_command", metavar="ACTION", required=True)
    sr = sensor_sub.add_parser("read", help="take one reading")
    _adapter_options(sr, board=False)
    sr.add_argument("sensor", type=_sensor, metavar="SENSOR", help=f"sensor driver: {', '.join(SENSORS)}")
    sr.add_argument("--address", type=int_auto, default=0x76, help="I2C address (default 0x76)")
    sr.add_argument("--bus", type=int_auto, help="I2C bus number (default: the adapter's first bus)")
    sr.set_defaults(handler=cmd_sensor_read)


def open_from_args(args: argparse.Namespace) -> Adapter:
    """The adapter the command line names, opened in this process exactly as a command without a daemon opens it."""
    from edge_agent.services.resources import DirectResources, open_url

    res = DirectResources(settings_from(args), state_from(args))
    url, name, board = res.choose(args.adapter, getattr(args, "board", None), args.url)
    return open_url(res.settings, res.state_dir, url, name, board,
                    pins=res.pins if getattr(args, "gpio_command", None) else None)


def _target(args: argparse.Namespace) -> dict[str, Any]:
    return {"url": args.url, "adapter": args.adapter, "board": getattr(args, "board", None)}


def _show(args: argparse.Namespace, result: dict[str, Any], text: str | None) -> None:
    """The action's result: as JSON with --json (exactly what the MCP tool returns), else as ``text``."""
    if args.json:
        print_json(result)
    elif text is not None:
        print(text)


def pin_text(result: dict[str, Any]) -> str:
    """``PA5 (red_led) = 1``: the pin driven or read, as the request named it when that differs."""
    pin, requested = str(result["pin"]), str(result.get("requested", result["pin"]))
    named = pin if requested == pin else f"{pin} ({requested})"
    return f"{named} = {result['value']}"


def _where(result: dict[str, Any]) -> str:
    reg = f" register {result['register_hex']}" if result.get("register_hex") else ""
    return f"{result['addr_hex']}{reg}"


def cmd_scan(args: argparse.Namespace) -> int:
    """`bus scan`: responding addresses as a grid, or the i2c_scan result as JSON."""
    result = run_op(args, "i2c_scan", {"url": args.url, "adapter": args.adapter, "bus": args.bus})
    _show(args, result, None if args.json else _scan_grid(result["addresses"], result["busy"]))
    return 0


def _scan_grid(found: list[int], busy: list[int]) -> str:
    from edge_agent.bus.base import format_scan_grid

    return format_scan_grid(found, busy=busy)


def cmd_info(args: argparse.Namespace) -> int:
    """`bus info`: capabilities and health (the hardware_capabilities result)."""
    result = run_op(args, "hardware_capabilities", _target(args))
    _show(args, result, None if args.json else info_text(result))
    return 0


def info_text(caps: dict[str, Any]) -> str:
    """An adapter's capabilities as lines of ``key: value`` (nested records indented under their key)."""
    lines: list[str] = []

    def add(key: str, value: Any, indent: int) -> None:
        pad = "  " * indent
        if isinstance(value, dict):
            if not value:
                lines.append(f"{pad}{key}: (none)")
                return
            lines.append(f"{pad}{key}:")
            for k, v in value.items():
                add(str(k), v, indent + 1)
        elif isinstance(value, list):
            simple = all(not isinstance(v, dict | list) for v in value)
            if simple:
                lines.append(f"{pad}{key}: {', '.join(str(v) for v in value) if value else '(none)'}")
            else:
                lines.append(f"{pad}{key}:")
                for i, v in enumerate(value):
                    add(f"- {i}", v, indent + 1)
        else:
            lines.append(f"{pad}{key}: {'-' if value is None else value}")

    for key, value in caps.items():
        add(key, value, 0)
    return "\n".join(lines)


def cmd_backends(args: argparse.Namespace) -> int:
    """`bus backends`: URL schemes and their extras."""
    from edge_agent.bus.registry import backends

    rows = [{"scheme": b.scheme, "module": b.module, "extra": b.extra, "summary": b.summary}
            for b in backends().values()]
    if args.json:
        print_json(rows)
    else:
        for r in rows:
            extra = f"pip install 'edge-agent[{r['extra']}]'" if r["extra"] else "built in"
            print(f"{r['scheme']}://  {r['summary']}  ({extra})")
    return 0


def cmd_i2c_read(args: argparse.Namespace) -> int:
    """`i2c read`: bytes from a target or register."""
    result = run_op(args, "i2c_read", {"url": args.url, "adapter": args.adapter, "addr": args.address,
                                       "register": args.register, "len": args.length, "bus": args.bus})
    _show(args, result, " ".join(f"0x{b:02X}" for b in result["data"]))
    return 0


def cmd_i2c_write(args: argparse.Namespace) -> int:
    """`i2c write`: bytes to a target or register."""
    result = run_op(args, "i2c_write", {"url": args.url, "adapter": args.adapter, "addr": args.address,
                                        "register": args.register, "bytes": list(args.data), "bus": args.bus})
    _show(args, result, f"wrote {result['written']} byte(s) to {_where(result)} on {result['adapter']}")
    return 0


def cmd_spi_transfer(args: argparse.Namespace) -> int:
    """`spi transfer`: one full-duplex transfer."""
    result = run_op(args, "spi_transfer", {"url": args.url, "adapter": args.adapter, "bytes": list(args.data),
                                           "bus": args.bus, "cs": args.cs, "mode": args.mode,
                                           "speed_hz": args.speed_hz})
    _show(args, result, " ".join(f"0x{b:02X}" for b in result["rx"]))
    return 0


def cmd_gpio_read(args: argparse.Namespace) -> int:
    """`gpio read`: a line's level (``PC13 (B1) = 1``)."""
    result = run_op(args, "gpio_read", {**_target(args), "pin": args.pin, "pull": args.pull})
    _show(args, result, pin_text(result))
    return 0


def cmd_gpio_write(args: argparse.Namespace) -> int:
    """`gpio write`: drive a line and say what was driven (``PA5 (red_led) = 1``); held while a daemon holds
    the adapter, released at exit without one."""
    from edge_agent.hub.client import find_client

    one_shot = find_client(state_dir(getattr(args, "state", None))) is None  # the same test run_op makes
    result = run_op(args, "gpio_write", {**_target(args), "pin": args.pin, "value": args.value})
    _show(args, result, pin_text(result))
    if one_shot:
        _note_release(args)
    return 0


def _note_release(args: argparse.Namespace) -> None:
    """Say on stderr that a host GPIO line written by this process alone is released when it exits."""
    from edge_agent.services.resources import DirectResources

    try:
        url = DirectResources(settings_from(args), state_from(args)).choose(args.adapter, None, args.url)[0]
    except Exception:  # noqa: BLE001 - the write succeeded; the note is only advice
        return
    if url.startswith("linux://"):
        # gpiozero hands the line back as an input when the adapter closes, and the kernel then frees it:
        # nothing keeps driving it, so it settles wherever its pull (or the circuit) takes it.
        print(f"edge-agent: note: no daemon holds {args.pin}: it was driven to {args.value} and is released now "
              "this command exits (back to an input, following its pull); to hold a level, write through the "
              "daemon (edge-agent run, or the edge-agent service)", file=sys.stderr)


def cmd_sensor_read(args: argparse.Namespace) -> int:
    """`sensor read bme280`: one compensated reading."""
    reading = run_op(args, "sensor_read", {"url": args.url, "adapter": args.adapter, "sensor": args.sensor,
                                           "addr": args.address, "bus": args.bus})
    _show(args, reading, f"temperature {reading['temperature_c']:.2f} C, pressure {reading['pressure_hpa']:.2f} "
          f"hPa, humidity {reading['humidity_pct']:.1f} %")
    return 0
