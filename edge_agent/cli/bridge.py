"""`edge-agent bridge list|ping|capabilities|sim`: boards running firmware_bridge over serial."""

from __future__ import annotations

import argparse
from typing import Any

from edge_agent.cli._common import print_json, run_op


def register(subparsers: Any) -> None:
    """Add the bridge subcommands."""
    bridge = subparsers.add_parser("bridge", help="firmware bridge boards: discover, ping, capabilities")
    sub = bridge.add_subparsers(dest="bridge_command", metavar="ACTION", required=True)

    lst = sub.add_parser("list", help="attached boards found by USB VID:PID (ST-LINK 0483:374B/374E, ...)")
    lst.add_argument("--json", action="store_true", help="print JSON")
    lst.set_defaults(handler=cmd_list)

    ping = sub.add_parser("ping", help="check that the firmware answers, and how fast")
    _url_option(ping)
    ping.add_argument("--count", "-c", type=int, default=3, help="round trips to time (default 3)")
    ping.set_defaults(handler=cmd_ping)

    caps = sub.add_parser("capabilities", help="protocol, firmware version, pins and commands of the board")
    _url_option(caps)
    caps.set_defaults(handler=cmd_capabilities)

    sim = sub.add_parser("sim", help="run the host build of the firmware on a pty (source checkout; no board)")
    sim.add_argument("--baud", type=int, default=0, help="pace the simulated UART at this rate (default: unpaced)")
    sim.set_defaults(handler=cmd_sim)


def _url_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", help="bridge URL, e.g. bridge:///dev/ttyACM0?baud=115200 or bridge://auto (default: "
                   "the first [[peripherals.boards]] entry on serial/bridge transport, else bridge://auto)")
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_list(args: argparse.Namespace) -> int:
    """Print attached boards with a known USB ID."""
    from edge_agent.bus.bridge.discovery import find_ports

    found = find_ports()
    if args.json:
        print_json([f.as_dict() for f in found])
        return 0
    if not found:
        print("no board with a known USB ID is attached (ST-LINK 0483:374B/374E, Arduino 2341:0043, ...)")
        return 0
    for f in found:
        serial = f" serial {f.serial_number}" if f.serial_number else ""
        print(f"{f.device}  {f.usb_id}  {f.probe}  board≈{f.board_guess}{serial}  -> {f.url}")
    return 0


def cmd_ping(args: argparse.Namespace) -> int:
    """Ping the firmware ``--count`` times and print round-trip times."""
    info = run_op(args, "bridge_ping", {"url": args.url, "count": args.count or 1})
    if args.json:
        print_json(info)
    else:
        rtts = info["rtt_ms"]
        print(f"pong from {info['url']}: protocol {info['protocol']}, board {info['board']}, firmware "
              f"{info['firmware']}; rtt min/avg/max {min(rtts):.2f}/{sum(rtts) / len(rtts):.2f}/{max(rtts):.2f} ms")
    return 0


def cmd_capabilities(args: argparse.Namespace) -> int:
    """Print the firmware's capabilities and the adapter's view of them."""
    result = run_op(args, "bridge_capabilities", {"url": args.url})
    data = {k: result[k] for k in ("adapter", "firmware", "hello")}
    if args.json:
        print_json(data)
    else:
        fw = data["firmware"]
        print(f"{result['url']}: protocol {result['protocol']}, board {fw.get('board', result['board'])}, "
              f"firmware {fw.get('firmware', '?')}")
        print(f"  gpio (Arduino D numbers): {fw.get('gpio')}  led_pin: {fw.get('led_pin')}  "
              f"reserved: {fw.get('reserved', [])}")
        if fw.get("analog"):
            print(f"  analog: {', '.join(fw['analog'])}")
        for bus in ("i2c", "spi"):
            if fw.get(bus):
                print(f"  {bus}: " + ", ".join(f"{k}={v}" for k, v in fw[bus].items()))
        print(f"  commands: {', '.join(fw.get('cmds', data['adapter']['commands']))}")
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    """Run the host firmware on a pty until interrupted, printing the URL to use."""
    from edge_agent.bus.bridge.hostsim import HostFirmware, build_host_firmware

    binary = build_host_firmware()
    with HostFirmware(binary, baud=args.baud or None) as fw:
        print(f"simulated board on bridge://{fw.path} (Ctrl-C to stop)", flush=True)
        assert fw.proc is not None
        fw.proc.wait()
    return 0
