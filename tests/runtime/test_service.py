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
