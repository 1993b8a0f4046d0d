"""``make field-check``: boot a Debian 12 arm64 guest under QEMU and run the device-level suite in it.

The guest is what a Raspberry Pi running 64-bit Pi OS Lite looks like to this project: a stock Debian
arm64 kernel with real systemd, ``/dev/i2c-N`` served by the kernel's i2c-stub, a 28-line header bank
of the kernel's gpio-sim (pulls set from outside through sysfs are what inputs read) and
``/dev/spidev0.0`` on a bit-banged spi-gpio bus whose MISO is a gpio-sim line. Nothing in the guest is
patched for the project: it installs the project's own wheel offline the way docs/install-arm.md and
docs/deployment.md tell a Pi user to, then every step checks the result through the kernel's own view
(gpio-sim's sysfs, i2c-stub's registers read with i2cget, systemd's unit state).

Steps on the host: build (once, cached) the guest image (build_image.sh), add the simulated header and
SPI bus to the device tree QEMU generates, download the aarch64 wheels the documented install needs
(cached by the project's requirements), build the project's wheel, boot a throwaway overlay of the image
with a 9p share carrying all of that, wait for the guest to power off, print the results table.

    python3 tools/field_rig/field_check.py [--only STEP ...] [--keep] [--timeout S]

Exit status: 0 when every step passed, 1 when one failed, 2 when the rig itself could not run.
Environment: EDGE_AGENT_FIELD_RIG_CACHE moves the cache (default ~/.cache/edge_agent/field-rig).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from check_arm_install import TARGETS, requirements_for  # noqa: E402

CACHE = Path(os.environ.get("EDGE_AGENT_FIELD_RIG_CACHE") or Path.home() / ".cache/edge_agent/field-rig")
#: The emulated machine; the device tree is dumped with exactly these options (it depends on them).
MACHINE = ["-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "2048", "-nic", "none"]
#: Seconds the guest may take to boot to the suite, and one step to finish, before the rig gives up.
BOOT_TIMEOUT = 600
STEP_TIMEOUT = 1800
#: Docs whose shell blocks the guest runs, in order, as a Pi user would.
DOCS = ("docs/install-arm.md", "docs/deployment.md")
#: A kept overlay to boot again instead of a fresh one (--reuse-overlay; for working on the suite).
REUSE: Path | None = None


def log(msg: str) -> None:
    print(f"[field-check {time.strftime('%H:%M:%S', time.gmtime())}] {msg}", flush=True)


def build_image() -> Path:
    """The cached image directory (vmlinuz, initrd.img, disk.qcow2), built first if needed."""
    proc = subprocess.run(["bash", str(HERE / "build_image.sh")], stdout=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(2)
    return Path(proc.stdout.strip().splitlines()[-1])


def device_tree(work: Path) -> Path:
    """QEMU's own device tree for MACHINE plus the simulated Pi header and SPI bus (pi-header.dtsi)."""
    base = work / "virt.dtb"
    subprocess.run(["qemu-system-aarch64", *MACHINE[:1], f"{MACHINE[1]},dumpdtb={base}", *MACHINE[2:],
                    "-nographic", "-display", "none"], check=True, capture_output=True)
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(base)], check=True, capture_output=True,
                         text=True).stdout
    combined = work / "rig.dts"
    combined.write_text(dts + "\n" + (HERE / "pi-header.dtsi").read_text())
    out = work / "rig.dtb"
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out), str(combined)], check=True)
    return out


def documented_extras() -> list[str]:
    """Every extra the Pi install commands in DOCS name (``edge-agent[a,b]`` or ``...whl)[a,b]``)."""
    found: set[str] = set()
    for doc in DOCS:
        for match in re.finditer(r"(?:edge-agent|\.whl\)?\"?)\[([a-z0-9_,\s-]+)\]", (ROOT / doc).read_text()):
            found.update(e.strip() for e in match.group(1).split(",") if e.strip())
    return sorted(found)


def makefile_extras() -> list[str]:
    """The extras `make install` puts in the developer venv (what `make run` / `make test` need)."""
    m = re.search(r"^EXTRAS \?= (.+)$", (ROOT / "Makefile").read_text(), re.M)
    return [e.strip() for e in m.group(1).split(",")] if m else []


def wheelhouse(extras: list[str]) -> Path:
    """aarch64 / CPython 3.11 wheels for the base install and `extras`, cached by what they resolve from."""
    reqs = requirements_for("aarch64", extras)
    # What `make install` needs besides: pip upgrades itself, and an editable install builds with
    # hatchling, which asks for editables.
    build_reqs = ["hatchling>=1.21", "editables", "pip"]
    platforms = TARGETS["aarch64"]["platforms"]
    key = hashlib.sha256(json.dumps([reqs, build_reqs, platforms]).encode()).hexdigest()[:16]
    out = CACHE / f"wheels-{key}"
    if (out / ".done").exists():
        return out
    log(f"downloading aarch64 wheels for {len(reqs)} requirements ({','.join(extras)})")
    tmp = Path(tempfile.mkdtemp(prefix="wheels-", dir=CACHE))
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(tmp), "--only-binary", ":all:",
           "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    for tag in platforms:
        cmd += ["--platform", tag]
    proc = subprocess.run([*cmd, *reqs, *build_reqs], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("WARNING: Location")]
        raise SystemExit("pip could not download the aarch64 wheels:\n" + "\n".join(lines[-20:]))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    (out / ".done").touch()
    return out


def project_wheel(dest: Path) -> Path:
    """The project's wheel, built from this checkout the way `make wheel` builds it."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "-w", str(dest), str(ROOT)], check=True, capture_output=True)
    return next(dest.glob("edge_agent-*.whl"))


def checkout_files() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def make_share(work: Path, wheels: Path, only: list[str]) -> Path:
    share = work / "share"
    (share / "out").mkdir(parents=True)
    shutil.copytree(HERE / "guest", share / "guest")
    (share / "wheels").mkdir()
    for whl in wheels.glob("*.whl"):
        os.link(whl, share / "wheels" / whl.name) if whl.stat().st_dev == share.stat().st_dev \
            else shutil.copy2(whl, share / "wheels" / whl.name)
    project_wheel(share / "wheels")
    src = share / "src"
    for rel in checkout_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    (share / "guest" / "plan.json").write_text(json.dumps({"only": only, "docs": list(DOCS),
                                                          "resume": REUSE is not None}))
    for dirpath, dirnames, filenames in os.walk(share):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            path.chmod(path.stat().st_mode | 0o755 if path.is_dir() else path.stat().st_mode | 0o644)
    share.chmod(0o755)
    (share / "out").chmod(0o777)
    return share


def boot(image: Path, dtb: Path, share: Path, work: Path, timeout: float) -> tuple[int, float]:
    """Boot an overlay of the image; the guest runs the suite and powers off. (qemu status, seconds)."""
    overlay = work / "overlay.qcow2"
    if REUSE is not None:
        overlay = REUSE
    else:
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(image / "disk.qcow2"),
                        str(overlay)], check=True)
    console = work / "console.log"
    cmd = ["qemu-system-aarch64", *MACHINE, "-accel", "tcg", "-nographic", "-no-reboot",
           "-kernel", str(image / "vmlinuz"), "-initrd", str(image / "initrd.img"), "-dtb", str(dtb),
           "-append", "root=/dev/vda rw console=ttyAMA0 field_rig=1 quiet systemd.show_status=0",
           "-drive", f"file={overlay},if=virtio,format=qcow2,cache=unsafe",
           "-virtfs", f"local,path={share},mount_tag=rig,security_model=none,id=rig",
           "-serial", f"file:{console}", "-monitor", "none"]
    t0 = time.monotonic()
    stop = threading.Event()
    tail = threading.Thread(target=_follow, args=(share / "out" / "progress.log", stop), daemon=True)
    tail.start()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    progress = share / "out" / "progress.log"
    last_change, last_size = time.monotonic(), -1
    code: int | None = None
    while code is None:
        try:
            code = proc.wait(timeout=5)
            break
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        size = progress.stat().st_size if progress.exists() else 0
        if size != last_size:
            last_change, last_size = now, size
        started = console.exists() and b"field rig: suite starting" in console.read_bytes()
        why = ""
        if not started and now - t0 > BOOT_TIMEOUT:
            why = f"the guest did not reach the suite within {BOOT_TIMEOUT} s (see the console log)"
        elif now - last_change > STEP_TIMEOUT:
            why = f"no step finished for {STEP_TIMEOUT} s"
        elif now - t0 > timeout:
            why = f"the guest did not power off within {timeout:.0f} s"
        if why:
            log(why + "; stopping it")
            proc.kill()
            proc.wait()
            code = -1
    stop.set()
    tail.join()
    return code, time.monotonic() - t0


def _follow(path: Path, stop: threading.Event) -> None:
    pos = 0
    while True:
        done = stop.is_set()
        if path.exists():
            with path.open() as fh:
                fh.seek(pos)
                chunk = fh.read()
                pos = fh.tell()
            for line in chunk.splitlines():
                print(f"  guest: {line}", flush=True)
        if done:
            return
        stop.wait(2)


def report(results: list[dict[str, object]]) -> tuple[str, bool]:
    """The results table (markdown) and whether every step passed."""
    rows = ["| step | result | s | detail |", "| --- | --- | ---: | --- |"]
    ok = bool(results)
    for r in results:
        ok = ok and r["status"] == "pass"
        detail = str(r.get("detail", "")).replace("|", "/").replace("\n", " ")
        rows.append(f"| {r['step']} | {r['status']} | {float(r.get('seconds', 0)):.1f} | {detail[:160]} |")
    return "\n".join(rows), ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="run only steps whose name starts with this")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (overlay, share, logs)")
    parser.add_argument("--timeout", type=float, default=2400, help="seconds the guest may run (default 2400)")
    parser.add_argument("--reuse-overlay", type=Path, help="boot this kept overlay again (skips the install steps)")
    args = parser.parse_args(argv)
    global REUSE
    REUSE = args.reuse_overlay
    if os.geteuid() != 0:
        print("field-check needs root: it builds the guest image with debootstrap and chroot", file=sys.stderr)
        return 2
    CACHE.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    image = build_image()
    t_image = time.monotonic() - t0
    log(f"image {image.name} ready ({t_image:.0f} s)")
    extras = sorted(set(documented_extras()) | set(makefile_extras()))
    wheels = wheelhouse(extras)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=CACHE))
    try:
        dtb = device_tree(work)
        share = make_share(work, wheels, args.only)
        t_prep = time.monotonic() - t0 - t_image
        log(f"booting the guest (share {share}); extras {','.join(extras)}")
        code, seconds = boot(image, dtb, share, work, args.timeout)
        last = CACHE / "last-run"
        shutil.rmtree(last, ignore_errors=True)
        last.mkdir()
        for name in ("console.log",):
            if (work / name).exists():
                shutil.copy2(work / name, last / name)
        for item in (share / "out").iterdir():
            if item.is_file():
                shutil.copy2(item, last / item.name)
        results_file = share / "out" / "results.json"
        results = json.loads(results_file.read_text()) if results_file.exists() else []
        if not results:
            print(f"the guest reported no results (qemu exit {code}); console log: {last / 'console.log'}")
            return 2
        table, ok = report(results)
        finished = (share / "out" / "finished").exists()
        if not finished:
            table += "\n| (the suite did not finish: the guest stopped before its last step) | FAIL | | |"
            ok = False
        timing = (f"image {t_image:.0f} s (cached: {'yes' if t_image < 60 else 'no'}), wheels and share "
                  f"{t_prep:.0f} s, guest boot-to-poweroff {seconds:.0f} s, total {time.monotonic() - t0:.0f} s")
        (last / "results.md").write_text(table + "\n\n" + timing + "\n")
        print(table)
        print(timing)
        print(f"logs: {last}")
        return 0 if ok and code == 0 else 1
    finally:
        if args.keep:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
