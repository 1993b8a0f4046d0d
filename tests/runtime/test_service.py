"""`edge-agent service install`: the systemd unit, udev rules, sysusers and tmpfiles snippets."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

from edge_agent.cli import main

FILES = ("etc/systemd/system/edge-agent.service", "etc/udev/rules.d/60-edge-agent.rules",
         "usr/lib/sysusers.d/edge-agent.conf", "usr/lib/tmpfiles.d/edge-agent.conf")


def _unit(path: Path) -> dict[str, list[str]]:
    """Every key of the [Service] section with all its values (systemd keys repeat)."""
    values: dict[str, list[str]] = {}
    section = ""
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values.setdefault(key, []).append(value)
    return values


def test_dry_run_prints_every_file_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["service", "install", "--dry-run", "--prefix", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for rel in FILES:
        assert f"# would write {tmp_path / rel}" in out
    assert list(tmp_path.iterdir()) == []


def test_install_writes_the_unit_with_execstart_pointing_at_this_installation(tmp_path: Path) -> None:
    assert main(["service", "install", "--prefix", str(tmp_path), "--exec", "/srv/ea/bin/edge-agent"]) == 0
    for rel in FILES:
        assert (tmp_path / rel).is_file()
    unit = _unit(tmp_path / FILES[0])
    assert unit["ExecStart"] == ["/srv/ea/bin/edge-agent run"]
    assert unit["Type"] == ["notify"] and unit["Restart"] == ["on-failure"] and unit["WatchdogSec"]
    assert unit["StateDirectory"] == ["edge-agent"] and unit["ConfigurationDirectory"] == ["edge-agent"]
    assert unit["ProtectSystem"] == ["strict"] and unit["NoNewPrivileges"] == ["yes"]
    assert "PrivateDevices" not in unit  # it would hide /dev/i2c-*, spidev, ttyACM and USB
    allowed = {v.split()[0] for v in unit["DeviceAllow"]}
    assert {"char-i2c", "char-spi", "char-gpiochip", "char-ttyACM", "char-usb_device"} <= allowed
    assert set(unit["SupplementaryGroups"][0].split()) >= {"gpio", "i2c", "spi", "dialout", "plugdev"}
    assert unit["WorkingDirectory"] == ["%S/edge-agent"] and any(v.startswith("LG_WD=") for v in unit["Environment"])
    # Parseable as INI too (duplicate DeviceAllow keys aside).
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string((tmp_path / FILES[0]).read_text())
    assert parser.has_section("Install")


def test_udev_rules_cover_aardvark_ft232h_and_st_link(tmp_path: Path) -> None:
    assert main(["service", "install", "--prefix", str(tmp_path)]) == 0
    rules = (tmp_path / FILES[1]).read_text()
    for vid, pid in (("0403", "e0d0"), ("0403", "6014"), ("0483", "374b"), ("0483", "374e"), ("0483", "3748"),
                     ("0483", "3752")):
        assert f'ATTR{{idVendor}}=="{vid}", ATTR{{idProduct}}=="{pid}"' in rules


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_installed_unit(tmp_path: Path) -> None:
    exe = shutil.which("true") or "/bin/true"  # verify checks that ExecStart is executable
    assert main(["service", "install", "--prefix", str(tmp_path), "--exec", exe]) == 0
    unit = tmp_path / FILES[0]
    unit.write_text(unit.read_text().replace(f"ExecStart={exe} run", f"ExecStart={exe}"))
    proc = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "edge-agent.service:" not in proc.stderr, proc.stderr  # no unknown keys or bad values


@pytest.mark.skipif(not shutil.which("systemd-sysusers") or not shutil.which("systemd-tmpfiles"),
                    reason="systemd-sysusers/systemd-tmpfiles are not installed")
def test_sysusers_and_tmpfiles_snippets_apply_to_an_empty_root(tmp_path: Path) -> None:
    prefix, root = tmp_path / "prefix", tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    assert main(["service", "install", "--prefix", str(prefix)]) == 0
    subprocess.run(["systemd-sysusers", f"--root={root}", str(prefix / FILES[2])], check=True,
                   capture_output=True, timeout=60)
    passwd = (root / "etc/passwd").read_text()
    groups = {line.split(":")[0]: line.split(":")[3] for line in (root / "etc/group").read_text().splitlines()}
    assert passwd.startswith("edge-agent:") or "\nedge-agent:" in passwd
    for group in ("gpio", "i2c", "spi", "dialout", "plugdev"):
        assert "edge-agent" in groups[group].split(",")
    subprocess.run(["systemd-tmpfiles", f"--root={root}", "--create", str(prefix / FILES[3])], check=True,
                   capture_output=True, timeout=60)
    assert (root / "etc/edge-agent").is_dir()
    assert (root / "var/lib/edge-agent").stat().st_mode & 0o777 == 0o700


#: What the bus backends do to a device node: open it, ioctl (I2C_SLAVE/I2C_RDWR, SPI_IOC_MESSAGE,
#: the GPIO v2 line requests, termios), read/write, poll for edges, flock a serial port.
HARDWARE_SYSCALLS = ("openat", "ioctl", "read", "write", "poll", "ppoll", "flock", "close", "fcntl")


def _expand_filter(names: list[str]) -> set[str]:
    """Expand the @groups of a SystemCallFilter= value (recursively) with systemd-analyze syscall-filter."""
    calls: set[str] = set()
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if not name.startswith("@"):
            calls.add(name)
            continue
        out = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        body = [line.strip() for line in out.splitlines()[1:]]  # the first line is the group's own name
        todo += [w for w in body if w and not w.startswith("#")]
    return calls


def test_the_unit_reaches_i2c_spi_gpio_and_serial_device_nodes(tmp_path: Path) -> None:
    assert main(["service", "install", "--prefix", str(tmp_path)]) == 0
    unit = _unit(tmp_path / FILES[0])
    assert unit["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0]: v.split()[1] for v in unit["DeviceAllow"]}
    # Pi UARTs: ttyAMA (PL011) and ttyS0 (mini UART), beside USB CDC/serial bridges.
    for node in ("char-i2c", "char-spi", "char-gpiochip", "/dev/gpiomem", "char-ttyACM", "char-ttyUSB",
                 "char-ttyAMA", "/dev/ttyS0", "char-usb_device"):
        assert allowed.get(node) == "rw", node
    # The cgroup device filter works on whole majors for char-NAME: ttyS shares major 4 with the
    # virtual consoles, which a real kernel then lets the unit open (the arm64 field check saw /dev/tty1).
    assert "char-ttyS" not in allowed
    for blocked in ("PrivateDevices", "PrivateUsers", "ProcSubset", "IPAddressDeny", "PrivateNetwork"):
        # Hides the nodes, unmaps the device groups, hides /proc/device-tree and /proc/cpuinfo (board
        # detection), or cuts off the upstream server.
        assert blocked not in unit, blocked
    assert set(unit["SupplementaryGroups"][0].split()) >= {"gpio", "i2c", "spi", "dialout", "plugdev"}
    assert unit["CapabilityBoundingSet"] == [""]  # device access comes from groups, not capabilities
    if shutil.which("systemd-analyze"):
        allowed_calls = _expand_filter([n for v in unit["SystemCallFilter"] if not v.startswith("~")
                                        for n in v.split()])
        denied_calls = _expand_filter([n for v in unit["SystemCallFilter"] if v.startswith("~")
                                       for n in v[1:].split()])
        for call in HARDWARE_SYSCALLS:
            assert call in allowed_calls and call not in denied_calls, call


def test_the_unit_starts_without_waiting_for_the_network(tmp_path: Path) -> None:
    # The runtime works offline; the sync worker waits for the network by itself.
    assert main(["service", "install", "--prefix", str(tmp_path)]) == 0
    text = (tmp_path / FILES[0]).read_text()
    unit_section = text.split("[Service]")[0]
    assert "network-online.target" not in "\n".join(
        line for line in unit_section.splitlines() if not line.lstrip().startswith("#"))


def _security_supports_offline() -> bool:
    if not shutil.which("systemd-analyze"):
        return False
    proc = subprocess.run(["systemd-analyze", "security", "--help"], capture_output=True, text=True, timeout=60)
    return "--offline" in proc.stdout


@pytest.mark.skipif(not _security_supports_offline(), reason="systemd-analyze security --offline is not available")
def test_systemd_analyze_security_rates_the_unit_3_or_better(tmp_path: Path) -> None:
    assert main(["service", "install", "--prefix", str(tmp_path)]) == 0
    proc = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(tmp_path / FILES[0])],
                          capture_output=True, text=True, timeout=120)
    line = next(line for line in proc.stdout.splitlines() if "Overall exposure level" in line)
    exposure = float(line.split(":")[1].split()[0])
    assert exposure <= 3.0, proc.stdout
