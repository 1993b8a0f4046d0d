"""Check that `pip install 'edge-agent[extras]'` resolves to wheels only on 64-bit and 32-bit ARM.

A Raspberry Pi has no compiler toolchain by default and a source build of a native package fails
there (or takes an hour). For each target (aarch64: 64-bit Pi OS; armv7l: 32-bit Pi OS) this
evaluates the project's environment markers for that machine (pip evaluates markers against the
machine it runs on, even with --platform), then asks pip to resolve the selected requirements and
everything they pull in with ``--only-binary :all:`` for that platform. pip's dry run reads wheel
metadata only, so the check downloads little. Exit status 1 names every target that does not resolve.

Packages PyPI has no wheel for on a target but that Pi OS ships as apt packages (installed with
``apt`` and seen by a venv made with ``--system-site-packages``, see docs/install-arm.md) are given to
the resolver at the version Pi OS Bookworm ships, as stand-in wheels: the check then proves that the
rest resolves from wheels and that those versions satisfy every requirement on them.

    python tools/check_arm_install.py [--extras linux,bridge,...] [--target aarch64 ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
PYTHON_VERSION = "3.11"  # Raspberry Pi OS Bookworm



def _platforms(machine: str) -> list[str]:
    # pip matches --platform tags literally: given manylinux_2_36 it does not take a wheel tagged
    # manylinux_2_34 (lgpio's aarch64 wheel) although glibc 2.36 runs it, and silently falls back to
    # another release. Pi OS Bookworm has glibc 2.36, so every manylinux_2_x up to 2.36 is listed.
    return [*(f"manylinux_2_{minor}_{machine}" for minor in range(36, 16, -1)), f"manylinux2014_{machine}",
            f"linux_{machine}"]


#: pip --platform tags a wheel may carry for each machine, and the marker environment of that machine.
TARGETS: dict[str, dict[str, Any]] = {
    "aarch64": {
        "platforms": _platforms("aarch64"),
        "from_os": {},
    },
    "armv7l": {
        "platforms": _platforms("armv7l"),
        # PyPI has no 32-bit ARM wheels of these (pulled in by the MCP SDK's JWT support).
        "from_os": {"cryptography": "38.0.4", "cffi": "1.15.1"},
    },
}
#: Extras meant to install on a Pi (dev is the developer toolchain, never installed there).
DEFAULT_EXTRAS = ("linux", "aardvark", "ftdi", "bridge", "pdf", "kumiho", "mcp", "agent", "ml")


def marker_env(machine: str) -> dict[str, str]:
    """The PEP 508 marker environment of CPython 3.11 on Linux on ``machine``."""
    return {
        "implementation_name": "cpython", "implementation_version": f"{PYTHON_VERSION}.0",
        "os_name": "posix", "platform_machine": machine, "platform_python_implementation": "CPython",
        "platform_release": "", "platform_system": "Linux", "platform_version": "",
        "python_full_version": f"{PYTHON_VERSION}.0", "python_version": PYTHON_VERSION, "sys_platform": "linux",
    }


def requirements_for(machine: str, extras: list[str], pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The project's requirements (base and ``extras``) that apply on ``machine``, markers removed."""
    project = tomllib.loads(pyproject.read_text())["project"]
    optional = project.get("optional-dependencies", {})
    unknown = sorted(set(extras) - set(optional))
    if unknown:
        raise SystemExit(f"unknown extra(s) {unknown}; pyproject.toml defines {sorted(optional)}")
    env = marker_env(machine)
    selected: list[str] = []
    for text in [*project.get("dependencies", []), *(r for e in extras for r in optional[e])]:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        req.marker = None
        selected.append(str(req))
    return selected


def resolve(machine: str, requirements: list[str]) -> tuple[bool, str]:
    """Ask pip to resolve ``requirements`` from wheels for ``machine``; (ok, pip's last words)."""
    platforms = TARGETS[machine]["platforms"]
    with tempfile.TemporaryDirectory(prefix=f"arm-{machine}-") as tmp:
        report = Path(tmp) / "report.json"
        os_wheels = Path(tmp) / "from-os"
        for name, version in TARGETS[machine]["from_os"].items():
            _stand_in_wheel(os_wheels, name, version)
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
               "--report", str(report), "--target", str(Path(tmp) / "target"), "--only-binary", ":all:",
               "--python-version", PYTHON_VERSION, "--implementation", "cp", "--abi", "cp311"]
        for tag in platforms:
            cmd += ["--platform", tag]
        if TARGETS[machine]["from_os"]:
            cmd += ["--find-links", str(os_wheels)]
        proc = subprocess.run([*cmd, *requirements], capture_output=True, text=True, timeout=900, check=False)
        if proc.returncode != 0:
            # pip's notes about unreadable extra index locations of this machine are not the answer.
            lines = [line for line in (proc.stderr or proc.stdout).splitlines() if not line.startswith("WARNING:")]
            return False, "\n".join(lines).strip()[-1500:]
        installed = json.loads(report.read_text()).get("install", [])
        names = sorted(f"{i['metadata']['name']}=={i['metadata']['version']}" for i in installed)
        return True, f"{len(names)} wheels: {', '.join(names)}"


def _stand_in_wheel(folder: Path, name: str, version: str) -> None:
    """An empty wheel for a package the OS provides, so the resolver counts it as available."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: check_arm_install\nRoot-Is-Purelib: true\n"
                                   "Tag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{dist}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as whl:
        for path, text in files.items():
            whl.writestr(path, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default=",".join(DEFAULT_EXTRAS), help="comma-separated extras to install")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="machine (repeatable)")
    args = parser.parse_args(argv)
    extras = [e for e in args.extras.split(",") if e]
    failed = []
    for machine in args.target or sorted(TARGETS):
        reqs = requirements_for(machine, extras)
        ok, detail = resolve(machine, reqs)
        print(f"{machine}: {'ok' if ok else 'FAILED'}: {detail}")
        if not ok:
            failed.append(machine)
    if failed:
        print(f"no wheel-only install of edge-agent[{','.join(extras)}] on {', '.join(failed)}: mark the package "
              "with an environment marker and document where it comes from (docs/install-arm.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
