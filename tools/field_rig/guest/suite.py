"""Guest side of ``make field-check``: runs as root inside the arm64 guest, from the host's 9p share.

Every step does what a Pi user or an MCP client does with the installed project, then checks the
outcome through the kernel's own view: gpio-sim's sysfs (``sim_gpioN/value`` is what software drives,
``sim_gpioN/pull`` is what an input reads), i2c-stub's register file (read with ``i2cget``), the i2c
and smbus trace events, systemd's unit properties, and /proc. Results go to ``out/results.json`` after
each step (so a crash leaves the steps that ran) and one line per step to ``out/progress.log``.

Standard library only: the guest's system Python runs it, as on a freshly imaged Pi.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import traceback
from collections.abc import Callable
from pathlib import Path

SHARE = Path(sys.argv[1] if len(sys.argv) > 1 else "/mnt/rig")
OUT = SHARE / "out"
GUEST = SHARE / "guest"
PLAN = json.loads((GUEST / "plan.json").read_text())
HOME = Path("/home/pi")
CHECKOUT = HOME / "edge_agent"
STATE = "/var/lib/edge-agent"
SERVICE_CLI = "/opt/edge-agent/venv/bin/edge-agent"
RESULTS: list[dict[str, object]] = []
#: Facts later steps need (bus numbers, chip numbers, sysfs paths), found by the setup step.
HW: dict[str, object] = {}
BENCH: dict[str, object] = {}


class Fail(Exception):
    """A step's check did not hold; the message says what was expected and what the kernel showed."""


def check(cond: object, msg: str) -> None:
    if not cond:
        raise Fail(msg)


def record(step: str, status: str, seconds: float, detail: str) -> None:
    RESULTS.append({"step": step, "status": status, "seconds": round(seconds, 1), "detail": detail})
    (OUT / "results.json").write_text(json.dumps(RESULTS, indent=1))
    with (OUT / "progress.log").open("a") as fh:
        fh.write(f"{status:4} {seconds:6.1f}s {step}: {detail[:200]}\n")


def run_step(name: str, fn: Callable[[], str | None]) -> bool:
    only = PLAN.get("only") or []
    if only and not any(name.startswith(o) for o in only) and not name.startswith(("setup", "docs")):
        return True
    t0 = time.monotonic()
    try:
        detail = fn() or ""
        status = "pass"
    except Fail as exc:
        detail, status = str(exc), "FAIL"
    except Exception as exc:  # noqa: BLE001 - the rig reports, it never stops at one step
        detail, status = f"{type(exc).__name__}: {exc} | {traceback.format_exc().splitlines()[-3].strip()}", "FAIL"
    record(name, status, time.monotonic() - t0, detail)
    return status == "pass"


# --- running things --------------------------------------------------------------------------------
def sh(cmd: str, *, user: str = "root", timeout: float = 600, check_rc: bool = True, env: dict[str, str] | None = None,
       cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `cmd` with bash as `user` (a login-like environment for pi: HOME, groups from /etc/group)."""
    extra = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    extra.update(env or {})
    if user == "root":
        full = ["bash", "-c", cmd]
        penv = {**extra, "HOME": "/root"}
    else:
        assigns = [f"{k}={v}" for k, v in extra.items()]
        full = ["sudo", "-u", user, "-H", "env", *assigns, "bash", "-c", cmd]
        penv = dict(os.environ)
    proc = subprocess.run(full, capture_output=True, text=True, timeout=timeout, env=penv,
                          cwd=cwd or (str(CHECKOUT) if user == "pi" and CHECKOUT.exists() else "/"))
    with (OUT / "commands.log").open("a") as fh:
        fh.write(f"\n$ [{user}] {cmd}\n(exit {proc.returncode})\n{proc.stdout}{proc.stderr}")
    if check_rc and proc.returncode != 0:
        raise Fail(f"`{cmd}` exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-400:]}")
    return proc


def pi_cli(args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    """The service's CLI as the pi user, against the service's state directory (its socket)."""
    return sh(f"{SERVICE_CLI} --state {STATE} {args}", user="pi", **kw)  # type: ignore[arg-type]


def read(path: str | Path) -> str:
    return Path(path).read_text().strip()


def sim_line(chip: str, line: int) -> Path:
    return Path(str(HW[f"{chip}_sysfs"])) / f"sim_gpio{line}"


def set_pull(chip: str, line: int, pull: str) -> None:
    (sim_line(chip, line) / "pull").write_text(pull)


def sim_value(chip: str, line: int) -> int:
    return int(read(sim_line(chip, line) / "value"))


def toggle_pull(line: int, times: int = 3) -> None:
    """Press and release a button on header `line` from outside: pull-up, then pull-down, `times` times."""
    for _ in range(times):
        set_pull("header", line, "pull-up")
        time.sleep(0.6)
        set_pull("header", line, "pull-down")
        time.sleep(0.6)


def edge_counts(mode: str, python: str) -> dict[str, object]:
    """Run button.py in `mode` as the pi user on header line 5, press it three times, return what it saw."""
    script = GUEST / "button.py"
    result = OUT / f"{mode}.json"
    for name in (f"{mode}.ready", f"{mode}.stop", result.name):
        (OUT / name).unlink(missing_ok=True)
    set_pull("header", 5, "pull-down")
    env = []
    if python == "python3" and mode == "gpiozero":
        # No venv with gpiozero (a run without the installs): import it from the offline wheels.
        wheels = [str(w) for pat in ("gpiozero-*.whl", "colorzero-*.whl") for w in (SHARE / "wheels").glob(pat)]
        env = ["env", "PYTHONPATH=" + ":".join(wheels)]
    log = OUT / f"{mode}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(["sudo", "-u", "pi", "-H", *env, python, str(script), mode,
                                 str(HW["header_chip"]), "5", str(result)],
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd="/tmp")
    wait_for(lambda: (OUT / f"{mode}.ready").exists() or proc.poll() is not None, 60, f"the {mode} script")
    check(proc.poll() is None, f"{mode} script exited: {log.read_text()[-300:]}")
    toggle_pull(5)
    t0 = time.monotonic()
    (OUT / f"{mode}.stop").touch()
    proc.wait(timeout=180)
    got: dict[str, object] = json.loads(result.read_text()) if result.exists() else {}
    got["stopped_after_s"] = round(time.monotonic() - t0, 1)
    if log.read_text().strip():
        got["output"] = log.read_text()[-300:]
    return got


def i2cget(addr: int, reg: int) -> int:
    out = sh(f"i2cget -y {HW['i2c_bus']} 0x{addr:02x} 0x{reg:02x} b").stdout.strip()
    return int(out, 16)


def unit_props(*names: str) -> dict[str, str]:
    out = sh("systemctl show edge-agent " + " ".join(f"-p {n}" for n in names)).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def wait_for(fn: Callable[[], bool], timeout: float, what: str, every: float = 0.5) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if fn():
            return
        time.sleep(every)
    raise Fail(f"timed out after {timeout:.0f} s waiting for {what}")


# --- the simulated hardware -----------------------------------------------------------------------
# A BME280's trimming block as a real part reports it (0x88-0xA1, then 0xE1-0xE7), and one raw sample.
BME280_TP = bytes.fromhex("706b4367 18fc7d8e 43d6d00b 270b8c00 f9ff8c3c f8c67017 004b".replace(" ", ""))
BME280_H = bytes.fromhex("6a 01 00 13 29 03 1e".replace(" ", ""))
BME280_RAW = bytes.fromhex("65 5a c0 7e ed 00 6c 8e".replace(" ", ""))  # press, temp (20-bit each), hum


def bme280_expected() -> dict[str, float]:
    """The datasheet's floating-point compensation, written out here independently of the project."""
    tp, h = BME280_TP, BME280_H

    def u16(b: bytes, i: int) -> int:
        return b[i] | b[i + 1] << 8

    def s16(b: bytes, i: int) -> int:
        v = u16(b, i)
        return v - 65536 if v > 32767 else v

    t1, t2, t3 = u16(tp, 0), s16(tp, 2), s16(tp, 4)
    p = [u16(tp, 6)] + [s16(tp, 8 + 2 * i) for i in range(8)]
    h1 = tp[25]
    h2 = s16(h, 0)
    h3 = h[2]
    h4 = (h[3] << 4) | (h[4] & 0x0F)
    h4 = h4 - 4096 if h4 > 2047 else h4
    h5 = (h[5] << 4) | (h[4] >> 4)
    h5 = h5 - 4096 if h5 > 2047 else h5
    h6 = h[6] - 256 if h[6] > 127 else h[6]
    raw = BME280_RAW
    adc_p = (raw[0] << 12) | (raw[1] << 4) | (raw[2] >> 4)
    adc_t = (raw[3] << 12) | (raw[4] << 4) | (raw[5] >> 4)
    adc_h = (raw[6] << 8) | raw[7]
    var1 = (adc_t / 16384.0 - t1 / 1024.0) * t2
    var2 = ((adc_t / 131072.0 - t1 / 8192.0) ** 2) * t3
    t_fine = var1 + var2
    temp = t_fine / 5120.0
    var1 = t_fine / 2.0 - 64000.0
    var2 = var1 * var1 * p[5] / 32768.0 + var1 * p[4] * 2.0
    var2 = var2 / 4.0 + p[3] * 65536.0
    var1 = (p[2] * var1 * var1 / 524288.0 + p[1] * var1) / 524288.0
    var1 = (1.0 + var1 / 32768.0) * p[0]
    press = 1048576.0 - adc_p
    press = (press - var2 / 4096.0) * 6250.0 / var1
    var1 = p[8] * press * press / 2147483648.0
    var2 = press * p[7] / 32768.0
    press = press + (var1 + var2 + p[6]) / 16.0
    hv = t_fine - 76800.0
    hv = (adc_h - (h4 * 64.0 + h5 / 16384.0 * hv)) * (
        h2 / 65536.0 * (1.0 + h6 / 67108864.0 * hv * (1.0 + h3 / 67108864.0 * hv)))
    hv = hv * (1.0 - h1 * hv / 524288.0)
    return {"temperature_c": temp, "pressure_hpa": press / 100.0, "humidity_pct": max(0.0, min(100.0, hv))}


def setup_hardware() -> str:
    sh("modprobe i2c-dev && modprobe i2c-stub chip_addr=0x50,0x76")
    bus = None
    for adapter in Path("/sys/class/i2c-adapter").iterdir():
        if "stub" in read(adapter / "name").lower():
            bus = int(adapter.name.split("-")[1])
    check(bus is not None, "i2c-stub loaded but no adapter named like it in /sys/class/i2c-adapter")
    HW["i2c_bus"] = bus
    # The BME280 at 0x76: chip id, trimming block, one sample, idle status.
    regs = {0xD0: 0x60, 0xF3: 0x00, 0xF2: 0x00, 0xF4: 0x00, 0xF5: 0x00}
    regs.update({0x88 + i: b for i, b in enumerate(BME280_TP)})
    regs.update({0xE1 + i: b for i, b in enumerate(BME280_H)})
    regs.update({0xF7 + i: b for i, b in enumerate(BME280_RAW)})
    for reg, val in sorted(regs.items()):
        sh(f"i2cset -y {bus} 0x76 0x{reg:02x} 0x{val:02x} b")
    check(i2cget(0x76, 0xD0) == 0x60, "i2c-stub 0x76 does not hold the preloaded chip id")
    # A kernel driver bound at 0x50 (an ID EEPROM, as on a HAT): i2c-dev must then refuse the address.
    sh(f"modprobe at24 && echo 24c02 0x50 > /sys/bus/i2c/devices/i2c-{bus}/new_device")
    wait_for(lambda: Path(f"/sys/bus/i2c/devices/{bus}-0050/driver").exists(), 20, "at24 to bind 0x50")
    grid = sh(f"i2cdetect -y {bus}").stdout
    check(re.search(r"^50: UU", grid, re.M) and re.search(r"^70: .* 76", grid, re.M),
          f"i2cdetect does not show UU at 0x50 and 76 at 0x76:\n{grid}")
    chips = {}
    for line in sh("gpiodetect").stdout.splitlines():
        m = re.match(r"(gpiochip(\d+)) \[(.*?)\] \((\d+) lines\)", line)
        if m:
            chips[m.group(3)] = (int(m.group(2)), int(m.group(4)))
    check("pi-header" in chips and "spi0-lines" in chips, f"gpio-sim banks missing; gpiodetect shows {chips}")
    for label, key in (("pi-header", "header"), ("spi0-lines", "spi")):
        num = chips[label][0]
        HW[f"{key}_chip"] = num
        found = list(Path("/sys/devices/platform").glob(f"**/gpiochip{num}/sim_gpio0"))
        check(found, f"no gpio-sim sysfs for gpiochip{num}")
        HW[f"{key}_sysfs"] = str(found[0].parent)
    check(Path("/dev/spidev0.0").exists(), "no /dev/spidev0.0 (spi-gpio or spidev did not probe)")
    revision = Path("/proc/device-tree/system/linux,revision").read_bytes()
    check(len(revision) == 4, "the device tree carries no board revision (/system/linux,revision)")
    # The header chip by its label, as on a Pi 5 (gpiochip=pinctrl-rp1): its number is the probe order's.
    HW["url"] = f"linux://?i2c={bus}&spi=0.0&gpiochip=pi-header"
    return (f"i2c-stub on i2c-{bus} (0x76 BME280 image, 0x50 held by at24), pi-header = gpiochip{HW['header_chip']} "
            f"({chips['pi-header'][1]} lines), spidev0.0 on gpiochip{HW['spi_chip']}, revision 0x{revision.hex()}")


def write_config() -> None:
    """The board entry a Pi user writes for this machine (what `sudoedit` in deployment.md puts in place)."""
    text = textwrap.dedent(f"""\
        [peripherals]

        [[peripherals.boards]]
        board = "rpi-4b"
        name = "pi"
        url = "{HW['url']}"

        [server]
        record_hardware_writes = true

        [hardware.safety.adapters.pi]
        writable_gpio = ["J8-11", "GPIO27"]
        writable_i2c = ["0x76:0xF2-0xF4"]
        writable_spi = ["0.0"]
        """)
    (OUT / "edge-agent.toml").write_text(text)
    editor = OUT / "rig-editor"
    editor.write_text(f"#!/bin/sh\n# Stands in for the user's editor: put the rig's board config in the file.\n"
                      f"cat {OUT / 'edge-agent.toml'} > \"$1\"\n")
    editor.chmod(0o755)


# --- documented commands ---------------------------------------------------------------------------
def doc_commands(doc: str) -> list[str]:
    """Shell lines of the ```sh blocks a 64-bit Pi user is told to type (the 32-bit section is skipped)."""
    text = (CHECKOUT / doc).read_text()
    lines: list[str] = []
    heading = ""
    in_block = False
    for raw in text.splitlines():
        if raw.startswith("#") and not in_block:
            heading = raw
        if raw.startswith("```"):
            lang = raw[3:].strip()
            if in_block:
                in_block = False
            elif lang in ("sh", "bash", "shell"):
                in_block = not re.match(r"#+ .*(32-bit|armv7)", heading) or "64-bit" in heading
            continue
        if in_block and raw.strip() and not raw.lstrip().startswith("#"):
            lines.append(raw.strip())
    return lines


def run_doc_command(doc: str, cmd: str) -> str:
    env = {"SUDO_EDITOR": str(OUT / "rig-editor"), "EDITOR": str(OUT / "rig-editor")}
    body = cmd
    follow = re.search(r"(^|\s)-f(\s|$)", cmd) and cmd.split()[0] in ("journalctl", "tail")
    if follow:
        # A follow command never ends by itself: watch it for a while, as a user would, then stop it.
        body = f"timeout 8 {cmd}; rc=$?; [ $rc = 124 ] && exit 0 || exit $rc"
    proc = sh(body, user="pi", env=env, timeout=1800)
    return (proc.stdout + proc.stderr).strip().splitlines()[-1][:150] if (proc.stdout + proc.stderr).strip() else ""


def emulation_allowance() -> None:
    """Scale the unit's start timeout to the emulated machine, which runs many times slower than a Pi.

    The shipped TimeoutStartSec=180 leaves a slow Pi room; QEMU's software emulation on a saturated shared
    host has taken 83 s for a first start, so a loaded CI host could pass it. A drop-in, as an
    administrator would add one; the bench step records the start-up time the unit actually took.
    """
    drop = Path("/etc/systemd/system/edge-agent.service.d/emulation.conf")
    drop.parent.mkdir(parents=True, exist_ok=True)
    drop.write_text("[Service]\n# QEMU software emulation: start-up is many times slower than on a Pi.\n"
                    "TimeoutStartSec=600\n")
    sh("systemctl daemon-reload")


def prepare_user() -> str:
    emulation_allowance()
    if PLAN.get("resume"):
        # A second boot of a kept overlay: the installs are in place, only the share moved.
        write_config()
        return "resumed on a kept overlay"
    # The Pi user's checkout (make wheel, make run, make test run in it) and an offline package index:
    # /etc/pip.conf pointing at the wheels the host downloaded, as a field device with a local mirror.
    if CHECKOUT.exists():
        shutil.rmtree(CHECKOUT)
    shutil.copytree(SHARE / "src", CHECKOUT, symlinks=True)
    sh(f"chown -R pi:pi {CHECKOUT}")
    Path("/etc/pip.conf").write_text(f"[global]\nno-index = true\nfind-links = {SHARE / 'wheels'}\n"
                                     "disable-pip-version-check = true\n")
    write_config()
    # Raspberry Pi OS puts its first user in the hardware groups; Debian creates no such groups.
    for group in ("gpio", "i2c", "spi"):
        sh(f"getent group {group} >/dev/null || groupadd --system {group}")
    sh("usermod -aG gpio,i2c,spi pi")
    if PLAN.get("no_install"):
        # Without the service install its udev rules are not in place: give the groups the device
        # files as Raspberry Pi OS's own rules do.
        sh("chgrp gpio /dev/gpiochip* && chgrp i2c /dev/i2c-* && chgrp spi /dev/spidev* && "
           "chmod g+rw /dev/gpiochip* /dev/i2c-* /dev/spidev*")
    return f"checkout {sum(1 for _ in CHECKOUT.rglob('*'))} files; wheels {len(list((SHARE / 'wheels').glob('*.whl')))}"


# --- steps ------------------------------------------------------------------------------------------
def service_checks() -> list[tuple[str, Callable[[], str | None]]]:
    steps: list[tuple[str, Callable[[], str | None]]] = []

    def add(name: str) -> Callable[[Callable[[], str | None]], Callable[[], str | None]]:
        def deco(fn: Callable[[], str | None]) -> Callable[[], str | None]:
            steps.append((name, fn))
            return fn
        return deco

    @add("service: active through Type=notify")
    def _active() -> str:
        # At boot the unit may still be starting (the interpreter imports are slow under emulation).
        wait_for(lambda: unit_props("ActiveState")["ActiveState"] in ("active", "failed"), 300, "the unit to settle")
        p = unit_props("ActiveState", "SubState", "Type", "StatusText", "MainPID", "NRestarts", "WatchdogUSec")
        check(p["Type"] == "notify", f"unit Type is {p['Type']}")
        check(p["ActiveState"] == "active" and p["SubState"] == "running",
              f"unit is {p['ActiveState']}/{p['SubState']}")
        check(p["StatusText"], "no STATUS= line from the daemon")
        HW["main_pid"] = int(p["MainPID"])
        return f"pid {p['MainPID']}, watchdog {p['WatchdogUSec']}, status: {p['StatusText']}"

    @add("service: CLI as a member of the documented group reaches the socket")
    def _group_cli() -> str:
        # docs/hub.md: a drop-in giving the group traversal of the state directory, then usermod and restart.
        # `systemctl edit` needs a terminal; this writes the same drop-in file it would.
        drop = Path("/etc/systemd/system/edge-agent.service.d/override.conf")
        drop.parent.mkdir(parents=True, exist_ok=True)
        drop.write_text("[Service]\nStateDirectoryMode=0710\n")
        sh("systemctl daemon-reload && usermod -aG edge-agent pi && systemctl restart edge-agent")
        out = pi_cli("status --json").stdout
        status = json.loads(out)
        pid = int(unit_props("MainPID")["MainPID"])
        check(status.get("running") is True and status.get("pid") == pid,
              f"status as pi did not come from the daemon (running={status.get('running')}, pid={status.get('pid')}, "
              f"service pid {pid})")
        sock = Path(STATE) / "hub.sock"
        mode = oct(sock.stat().st_mode & 0o777)
        return f"status from daemon pid {pid}; {sock} mode {mode}"

    @add("gpio: CLI write J8-11 drives GPIO17 (sysfs)")
    def _gpio_cli() -> str:
        pi_cli("gpio write J8-11 1 --adapter pi")
        v1 = sim_value("header", 17)
        pi_cli("gpio write J8-11 0 --adapter pi")
        v0 = sim_value("header", 17)
        check((v1, v0) == (1, 0), f"sim_gpio17/value read {v1} after writing 1 and {v0} after 0")
        return "sim_gpio17/value followed 1 then 0 while the daemon holds the line"

    @add("safety: allow-list entry J8-11 also permits GPIO17 and 17 (same line)")
    def _allow_spellings() -> str:
        seen = []
        for spelling, value in (("GPIO17", 1), ("17", 0)):
            proc = pi_cli(f"gpio write {spelling} {value} --adapter pi", check_rc=False)
            check(proc.returncode == 0, f"gpio write {spelling} refused: {(proc.stderr or proc.stdout).strip()[-200:]}")
            seen.append(sim_value("header", 17))
        check(seen == [1, 0], f"sim_gpio17/value read {seen}")
        return "GPIO17 and 17 accepted by the J8-11 entry; sysfs followed"

    @add("thin client: a [linux]-only install reaches the daemon and never opens the hardware itself")
    def _thin() -> str:
        sh("rm -rf ~/thin && python3 -m venv --system-site-packages ~/thin && "
           "~/thin/bin/pip install -q 'edge-agent[linux]'", user="pi")
        proc = sh(f"~/thin/bin/edge-agent --state {STATE} gpio write J8-11 1 --adapter pi", user="pi", check_rc=False)
        text = (proc.stdout + proc.stderr).strip()
        check(proc.returncode == 0, f"[linux]-only CLI failed: {text[-300:]}")
        check(sim_value("header", 17) == 1, "sim_gpio17 not driven by the routed write")
        check("socket unavailable" not in text, f"fell back to opening the hardware: {text[-200:]}")
        pi_cli("gpio write J8-11 0 --adapter pi")
        return "routed through the socket from a [linux]-only venv"

    @add("i2c: register read on an SMBus-only adapter (i2c-stub)")
    def _i2c_read() -> str:
        out = pi_cli("i2c read 0x76 --register 0xD0 --adapter pi --json").stdout
        data = json.loads(out)["data"]
        check(data == [0x60], f"chip id read {data}")
        info = pi_cli("bus info --adapter pi").stdout
        return f"0xD0 = 0x60; bus info: {' '.join(info.split())[:120]}"

    @add("gpio: a line the chip lacks is named as such (line count, chip label)")
    def _line_count() -> str:
        url = f"linux://?gpiochip={HW['spi_chip']}"
        proc = sh(f"~/edge-agent/bin/edge-agent gpio read 22 --url '{url}'", user="pi", check_rc=False)
        text = (proc.stdout + proc.stderr).strip()
        check(proc.returncode != 0, "reading line 22 of a 4-line chip succeeded")
        check("another process" not in text and "4" in text, f"error does not give the line count: {text[-250:]}")
        return text[-160:]

    @add("gpio: MCP gpio_write drives GPIO27 (sysfs)")
    def _gpio_mcp() -> str:
        script = GUEST / "mcp_call.py"
        token = read(Path(STATE) / "mcp-token")
        out = sh(f"/opt/edge-agent/venv/bin/python {script} http://127.0.0.1:8765/mcp gpio_write "
                 f"'{json.dumps({'pin': 'GPIO27', 'value': 1, 'adapter': 'pi'})}'",
                 env={"MCP_TOKEN": token}).stdout
        result = json.loads(out)
        check(not result.get("isError"), f"gpio_write returned an error: {result}")
        value = sim_value("header", 27)
        check(value == 1, f"sim_gpio27/value is {value} after MCP gpio_write 1")
        HW["mcp_capture"] = result.get("structured", {}).get("capture", {})
        return f"sim_gpio27/value = 1; capture {HW['mcp_capture']}"

    @add("gpio: an external pull is what gpio read sees")
    def _gpio_read() -> str:
        seen = []
        for pull, want in (("pull-up", 1), ("pull-down", 0), ("pull-up", 1)):
            set_pull("header", 22, pull)
            got = int(json.loads(pi_cli("gpio read GPIO22 --adapter pi --json").stdout)["value"])
            seen.append(got)
            check(got == want, f"after {pull} on sim_gpio22, gpio read GPIO22 gave {got}")
        return f"GPIO22 read {seen} for pull-up, pull-down, pull-up"

    @add("spi: transfer on /dev/spidev0.0 returns the simulated MISO")
    def _spi() -> str:
        got = {}
        for pull, byte in (("pull-up", 0xFF), ("pull-down", 0x00)):
            set_pull("spi", 2, pull)
            rx = json.loads(pi_cli("spi transfer 0x9F 0x00 0x5A --adapter pi --json").stdout)["rx"]
            got[pull] = rx
            check(rx == [byte] * 3, f"MISO {pull}: rx {rx}, expected {[byte] * 3}")
        return f"rx {got}"

    @add("i2c: bus scan shows the stub, UU for the driver-held address, and never touches it")
    def _scan() -> str:
        tracing = Path("/sys/kernel/tracing")
        if not (tracing / "events").exists():
            sh("mount -t tracefs nodev /sys/kernel/tracing")
        (tracing / "events/i2c/enable").write_text("1")
        (tracing / "events/smbus/enable").write_text("1")
        (tracing / "trace").write_text("")
        grid = pi_cli("bus scan --adapter pi").stdout
        trace = (tracing / "trace").read_text()
        (tracing / "events/i2c/enable").write_text("0")
        (tracing / "events/smbus/enable").write_text("0")
        (OUT / "scan-trace.txt").write_text(trace)
        check(re.search(r"^50: UU", grid, re.M), f"0x50 (held by at24) not shown as UU:\n{grid}")
        check(re.search(r"^70: .*\b76\b", grid, re.M), f"0x76 not found:\n{grid}")
        touched = sorted({int(a, 16) for a in re.findall(r"\ba=0*([0-9a-f]+)\b", trace)})
        check(touched, "the scan left no i2c/smbus trace events")
        check(0x50 not in touched, "the scan sent a transfer to 0x50, which a kernel driver owns")
        return f"grid has 76 and UU at 50; traced addresses {len(touched)} (0x50 untouched)"

    @add("i2c: BME280 driver reads plausible T/P/H from the stub")
    def _bme() -> str:
        got = json.loads(pi_cli("sensor read bme280 --adapter pi --json").stdout)
        want = bme280_expected()
        for key, tol in (("temperature_c", 0.05), ("pressure_hpa", 0.2), ("humidity_pct", 0.5)):
            check(abs(float(got[key]) - want[key]) <= tol, f"{key} {got[key]} vs {want[key]:.2f} from the datasheet")
        check(-40 < want["temperature_c"] < 85 and 300 < want["pressure_hpa"] < 1100, "implausible expectation")
        ctrl = i2cget(0x76, 0xF4)
        check(ctrl & 0x03 == 0x01, f"ctrl_meas 0xF4 = 0x{ctrl:02X}: the driver did not start a forced measurement")
        return (f"{got['temperature_c']:.2f} C, {got['pressure_hpa']:.2f} hPa, {got['humidity_pct']:.1f} %RH; "
                f"ctrl_meas 0x{ctrl:02X} in the stub")

    @add("i2c: a write outside writable_i2c leaves the stub's registers unchanged")
    def _refused() -> str:
        before = [i2cget(0x76, r) for r in (0xF5, 0xE0, 0x88)]
        proc = pi_cli("i2c write 0x76 0x10 --register 0xF5 --adapter pi", check_rc=False)
        proc2 = pi_cli("i2c write 0x76 0xB6 --register 0xE0 --adapter pi", check_rc=False)
        after = [i2cget(0x76, r) for r in (0xF5, 0xE0, 0x88)]
        check(proc.returncode != 0 and proc2.returncode != 0, "a write outside writable_i2c was accepted")
        check("writable_i2c" in proc.stderr + proc.stdout, f"refusal does not say how to allow it: {proc.stderr}")
        check(before == after, f"stub registers changed: {before} -> {after}")
        return f"refused: {(proc.stderr or proc.stdout).strip().splitlines()[-1][:120]}"

    @add("service: watchdog keeps it up")
    def _watchdog() -> str:
        p = unit_props("MainPID", "WatchdogUSec", "NRestarts", "ActiveEnterTimestampMonotonic")
        pid = int(p["MainPID"])
        wd = p["WatchdogUSec"]
        m = re.fullmatch(r"(?:(\d+)min ?)?(?:(\d+)s)?", wd)
        check(m and wd, f"unit has no watchdog (WatchdogUSec={wd!r})")
        assert m
        secs = float(int(m.group(1) or 0) * 60 + int(m.group(2) or 0))
        uptime = float(read("/proc/uptime").split()[0])
        active_since = int(p["ActiveEnterTimestampMonotonic"]) / 1e6
        time.sleep(max(0.0, secs * 1.5 - (uptime - active_since)))
        q = unit_props("MainPID", "ActiveState", "NRestarts")
        check(q["ActiveState"] == "active" and int(q["MainPID"]) == pid and q["NRestarts"] == p["NRestarts"],
              f"service changed during {secs * 1.5:.0f} s of watchdog time: {p} -> {q}")
        return f"pid {pid} active for more than 1.5 x WatchdogSec ({wd})"

    @add("service: kill -9 restarts it and loses no acknowledged capture")
    def _kill() -> str:
        keys = [f"rig-ack-{i}" for i in range(5)]
        for k in keys:
            # --json: the acknowledgement as data (the plain output is a sentence for people).
            out = pi_cli(f"memory store --key {k} --content 'rig capture {k}' --category daily --json").stdout
            ack = json.loads(out)
            check(isinstance(ack, dict) and ack.get("key") == k and ack.get("id"),
                  f"memory store {k} acknowledged {out[:200]!r}")
        p = unit_props("MainPID", "NRestarts")
        old = int(p["MainPID"])
        os.kill(old, signal.SIGKILL)

        def restarted() -> bool:
            q = unit_props("MainPID", "ActiveState")
            return q["ActiveState"] == "active" and q["MainPID"] not in ("0", str(old))

        wait_for(restarted, 120, "the unit to restart after SIGKILL")
        q = unit_props("MainPID", "NRestarts")
        check(int(q["NRestarts"]) == int(p["NRestarts"]) + 1, f"NRestarts {p['NRestarts']} -> {q['NRestarts']}")
        missing = []
        for k in keys:
            got = pi_cli(f"memory get {k}", check_rc=False)
            if got.returncode != 0 or k not in got.stdout:
                missing.append(k)
        cap = HW.get("mcp_capture") or {}
        if isinstance(cap, dict) and cap.get("entry_id"):
            listing = pi_cli("memory list --json", check_rc=False).stdout
            if str(cap["entry_id"]) not in listing:
                missing.append(f"MCP capture {cap['entry_id']}")
        check(not missing, f"lost after kill -9: {missing}")
        return f"pid {old} -> {q['MainPID']}, NRestarts {q['NRestarts']}; {len(keys)} stores + MCP capture kept"

    @add("service: systemd-analyze security rates it as the docs say")
    def _security() -> str:
        out = sh("systemd-analyze security edge-agent.service --no-pager", check_rc=False).stdout
        m = re.search(r"Overall exposure level for edge-agent.service:\s*([\d.]+)\s+(\w+)", out)
        check(m, f"no overall rating in systemd-analyze output: {out[-300:]}")
        docs = (CHECKOUT / "docs/deployment.md").read_text()
        claim = re.search(r"rates it ([\d.]+) \(\"(\w+)\"", docs)
        check(claim, "docs/deployment.md states no rating")
        assert m and claim
        check((m.group(1), m.group(2)) == (claim.group(1), claim.group(2)),
              f"systemd-analyze says {m.group(1)} {m.group(2)}, docs say {claim.group(1)} {claim.group(2)}")
        return f"{m.group(1)} {m.group(2)} (docs: {claim.group(1)})"

    @add("service: DeviceAllow and groups open gpiochip, i2c, spidev and nothing else")
    def _devices() -> str:
        pid = int(unit_props("MainPID")["MainPID"])
        cg = read(f"/proc/{pid}/cgroup").split("::", 1)[-1]
        allowed = [f"/dev/gpiochip{HW['header_chip']}", f"/dev/i2c-{HW['i2c_bus']}", "/dev/spidev0.0"]
        denied = ["/dev/vda", "/dev/mem", "/dev/kmsg", "/dev/tty1", "/dev/watchdog"]
        denied = [d for d in denied if Path(d).exists()]
        probe = GUEST / "device_probe.py"
        as_service = sh(f"python3 {probe} {shlex.quote(cg)} edge-agent " + " ".join(allowed + denied)).stdout
        as_root = sh(f"python3 {probe} {shlex.quote(cg)} root " + " ".join(denied)).stdout
        res_s, res_r = json.loads(as_service), json.loads(as_root)
        bad = [d for d in allowed if res_s[d] != "ok"]
        check(not bad, f"the service user cannot open {[(d, res_s[d]) for d in bad]}")
        leaked = [d for d in denied if res_s[d] == "ok" or res_r[d] == "ok"]
        check(not leaked, f"opened despite DevicePolicy=closed: {leaked}")
        return f"service user: {res_s}; root in the unit's cgroup: {res_r}"

    @add("bench: arm64 daemon start-up and memory under the service")
    def _bench() -> str:
        t0 = time.monotonic()
        sh("systemctl restart edge-agent")
        start_s = time.monotonic() - t0
        pid = int(unit_props("MainPID")["MainPID"])
        journal = sh(f"journalctl -u edge-agent _PID={pid} --no-pager -o cat", check_rc=False).stdout
        m = re.search(r"ready in ([\d.]+)s", journal)
        status = {k: v for k, v in (ln.split(":", 1) for ln in read(f"/proc/{pid}/status").splitlines())}
        # One routed read and a status, so the figure is of a daemon that has served something.
        pi_cli("gpio read GPIO22 --adapter pi")
        pi_cli("status")
        status2 = {k: v for k, v in (ln.split(":", 1) for ln in read(f"/proc/{pid}/status").splitlines())}
        BENCH.update({"systemctl_restart_s": round(start_s, 2), "ready_s": float(m.group(1)) if m else None,
                      "rss_kb_ready": int(status["VmRSS"].split()[0]),
                      "rss_kb_served": int(status2["VmRSS"].split()[0]),
                      "hwm_kb": int(status2["VmHWM"].split()[0])})
        # Same-run baselines: a bare interpreter of the service's venv, and the import the daemon's
        # start-up is mostly made of (the MCP SDK), timed in the guest.
        bare = sh("/opt/edge-agent/venv/bin/python -c \"print(open('/proc/self/status').read())\"").stdout
        BENCH["bare_python_rss_kb"] = int(re.search(r"VmRSS:\s+(\d+)", bare).group(1))  # type: ignore[union-attr]
        t1 = time.monotonic()
        sh("/opt/edge-agent/venv/bin/python -c 'import mcp.server.mcpserver, uvicorn'")
        BENCH["import_mcp_s"] = round(time.monotonic() - t1, 2)
        (OUT / "bench.json").write_text(json.dumps(BENCH, indent=1))
        check(m, "no 'ready in' line in the journal")
        return json.dumps(BENCH)

    return steps


def oneshot_checks() -> list[tuple[str, Callable[[], str | None]]]:
    """Without the daemon: what a one-shot CLI does to the lines and the bus."""

    def _oneshot_write() -> str:
        sh("systemctl stop edge-agent")
        set_pull("header", 17, "pull-down")
        # The ~/edge-agent install of docs/install-arm.md, with its own state and the board config in /etc.
        proc = sh("~/edge-agent/bin/edge-agent gpio write J8-11 1 --adapter pi", user="pi", check_rc=False)
        after = sim_value("header", 17)
        text = (proc.stdout + proc.stderr).strip()
        check(proc.returncode == 0, f"one-shot gpio write failed: {text[-300:]}")
        check(after == 0, f"sim_gpio17 reads {after} after the one-shot CLI exited (expected its pull, 0)")
        check("releas" in text.lower(), f"the one-shot write does not say the line is released at exit: {text!r}")
        return f"line back at its pull after exit; CLI said: {text[-150:]}"

    def _oneshot_scan() -> str:
        proc = sh(f"{HOME}/edge-agent/bin/edge-agent bus scan --url 'linux://?i2c={HW['i2c_bus']}'", user="pi",
                  check_rc=False)
        text = proc.stdout + proc.stderr
        check(proc.returncode == 0, f"bus scan without a daemon failed: {text.strip()[-300:]}")
        check(re.search(r"^70: .*\b76\b", text, re.M) and re.search(r"^50: UU", text, re.M), f"scan grid:\n{text}")
        return "full grid from the ~/edge-agent install (76 found, 50 UU)"

    def _kernel_edges() -> str:
        # The kernel's own view first: libgpiod's gpiomon requests edge events on the character device.
        # If this sees nothing, the simulator is at fault, not any Python library above it.
        set_pull("header", 6, "pull-down")
        chip = f"gpiochip{HW['header_chip']}"
        proc = subprocess.Popen(["gpiomon", "--num-events=6", "--format=%e", chip, "6"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: "gpiomon" in sh(f"gpioinfo {chip} | grep -E 'line +6:'", check_rc=False).stdout
                 or proc.poll() is not None, 60, "gpiomon to request line 6")
        toggle_pull(6)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        levels = [int(x) for x in out.split()]
        check(levels == [1, 0] * 3, f"gpiomon saw {levels} (expected 3 rising and 3 falling): {err[-200:]}")
        return f"chardev events {levels}"

    def _lgpio_edges() -> str:
        got = edge_counts("lgpio", "python3")
        check(got.get("pressed") == 3 and got.get("released") == 3, f"lgpio callback saw: {got}")
        return f"lgpio alerts through python3-lgpio: {got}"

    def _button() -> str:
        # gpiozero's Button on the header chip through lgpio, as a Pi user's script: edges come from the
        # kernel's line events as the pull applied from outside changes.
        python = HOME / "edge-agent/bin/python"
        got = edge_counts("gpiozero", str(python) if python.exists() else "python3")
        check(got.get("pressed") == 3 and got.get("released") == 3, f"edges seen: {got}")
        return f"3 presses and 3 releases seen through lgpio: {got}"

    return [("gpio: one-shot CLI write is released at exit and says so", _oneshot_write),
            ("i2c: bus scan without a daemon covers the whole bus", _oneshot_scan),
            ("gpio: kernel line events from an external pull (gpiomon on the chardev)", _kernel_edges),
            ("gpio: lgpio alerts from an external pull (python3-lgpio callback)", _lgpio_edges),
            ("gpio: button edges from an external pull (gpiozero Button on lgpio)", _button)]


def user_checks() -> list[tuple[str, Callable[[], str | None]]]:
    """The README's two commands in the Pi user's checkout, on aarch64."""

    def _make_run() -> str:
        # A checkout without its own edge-agent.toml runs on the embedded defaults, even with the service's
        # board config in /etc; with one, on that (here the same board: the service is stopped by now).
        local = CHECKOUT / "edge-agent.toml"
        local.unlink(missing_ok=True)
        first, log1 = make_run()
        check("config embedded defaults" in log1, f"`make run` without ./edge-agent.toml did not run on the embedded "
                                                  f"defaults: {log1[:300]}")
        shutil.copy(OUT / "edge-agent.toml", local)
        sh(f"chown pi:pi {local}")
        try:
            second, log2 = make_run()
        finally:
            local.unlink()
        check("config edge-agent.toml" in log2 and "1/1 adapters" in second,
              f"`make run` with the checkout's edge-agent.toml: {second[-200:]}")
        return f"defaults: {first[-60:]}; with ./edge-agent.toml: {second[-90:]}"

    def make_run() -> tuple[str, str]:
        cmd = ["sudo", "-u", "pi", "-H", "env", "PATH=/usr/bin:/bin", "make", "-C", str(CHECKOUT), "run"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        lines: list[str] = []
        t0 = time.monotonic()
        assert proc.stdout is not None
        ready = None
        while time.monotonic() - t0 < 900:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "ready in" in line:
                ready = line.strip()
                break
        os.killpg(proc.pid, signal.SIGINT)
        try:
            rest, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rest, _ = proc.communicate()
        with (OUT / "make-run.log").open("a") as fh:
            fh.write("".join(lines) + rest + "\n")
        check(ready, f"`make run` never logged ready: {''.join(lines)[-300:]}")
        assert ready
        return ready, "".join(lines)

    def _make_test() -> str:
        # The full suite takes hours under emulation; this subset covers the drivers, the pin maps and the
        # bus contract suite (simulator and vendor fakes). The kernel-facing parts are the steps above.
        subset = "tests/drivers tests/pins tests/bus/contract tests/bus/test_linux.py tests/bus/test_linux_gpio.py"
        present = " ".join(p for p in subset.split() if (CHECKOUT / p).exists())
        proc = sh(f"make install >/dev/null && .venv/bin/python -m pytest {present} -q -x -p no:cacheprovider "
                  "--timeout 600 -rs", user="pi", timeout=3000, check_rc=False)
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        # pytest's summary line ("N passed, M skipped in S"), not the skip reasons -rs prints around it.
        tail = next((ln for ln in reversed(lines) if " passed" in ln or " failed" in ln or "error" in ln),
                    lines[-1] if lines else "")
        check(proc.returncode == 0, f"pytest {present}: {tail}")
        return f"pytest {present}: {tail}"

    return [("user: make run on aarch64", _make_run), ("user: make test subset on aarch64", _make_test)]


def probe(cmd: str) -> str:
    """A command given with --probe (investigating a step): its exit status and output, whatever they are."""
    proc = sh(cmd, timeout=900, check_rc=False, env={"SHARE": str(SHARE), "GUEST": str(GUEST),
                                                   "HEADER_CHIP": str(HW.get("header_chip", "")),
                                                   "HEADER_SYSFS": str(HW.get("header_sysfs", ""))})
    return f"exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()[-3000:]}"


def main() -> int:
    OUT.mkdir(exist_ok=True)
    if not run_step("setup: simulated hardware in the kernel", setup_hardware):
        return 1
    run_step("setup: Pi user, checkout and offline package index", prepare_user)
    for doc in [] if PLAN.get("resume") or PLAN.get("no_install") else PLAN["docs"]:
        for cmd in doc_commands(doc):
            shown = re.sub(r"\s+#.*$", "", cmd)
            run_step(f"docs {doc.split('/')[-1]}: {shown}", lambda d=doc, c=cmd: run_doc_command(d, c))  # type: ignore[misc]
    for i, cmd in enumerate(PLAN.get("probes") or []):
        run_step(f"setup: probe {i + 1}: {cmd[:60]}", lambda c=cmd: probe(c))  # type: ignore[misc]
    for name, fn in service_checks() + oneshot_checks() + user_checks():
        run_step(name, fn)
    # The host counts a run as complete only with this file: steps that passed before a crash or a
    # killed guest are not a passing run.
    (OUT / "finished").write_text(str(len(RESULTS)))
    return 0


if __name__ == "__main__":
    try:
        main()
    finally:
        sh("journalctl -b --no-pager > " + str(OUT / "journal.txt"), check_rc=False)
        sh("sync", check_rc=False)
