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

    python3 tools/field_rig/field_check.py [--only STEP ...] [--no-install] [--keep] [--timeout S]

``--only`` with ``--no-install`` is the quick loop for working on one step (about two minutes): the
guest sets up the simulated hardware and the Pi user, then runs just the chosen steps, without the
documented installs (steps that need the installed project then fail; the kernel-level ones do not).

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


def make_share(work: Path, wheels: Path, only: list[str], no_install: bool = False,
               probes: list[str] | None = None) -> Path:
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
                                                          "resume": REUSE is not None,
                                                          "no_install": no_install, "probes": probes or []}))
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


def host_venv(wheel: Path) -> Path:
    """A venv on this host with the project and the extras docs/deployment.md installs under the service
    (the guest's /opt/edge-agent/venv), so the two daemons import the same packages (cached; the project
    itself is reinstalled from this run's wheel)."""
    doc = (ROOT / "docs/deployment.md").read_text()
    m = re.search(r"\.whl\)\[([a-z0-9_,-]+)\]", doc)
    extras = m.group(1) if m else "linux,mcp"
    venv = CACHE / f"host-venv-{hashlib.sha256(extras.encode()).hexdigest()[:8]}"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if not (venv / ".done").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([*pip, f"{wheel}[{extras}]"], check=True, capture_output=True)
        (venv / ".done").write_text(extras)
    else:
        subprocess.run([*pip, "--no-deps", "--force-reinstall", str(wheel)], check=True, capture_output=True)
    return venv


def host_baseline(config: Path, work: Path, wheel: Path) -> dict[str, object]:
    """The guest's bench step repeated on this x86 host, the same way: the daemon started with systemd's
    notify protocol (a socket we listen on stands in for systemd), timed to READY=1, its VmRSS there and
    after one routed read and a status, VmHWM, and the same-run baselines (bare interpreter, MCP import).

    Same configuration as the guest's service; there is no such hardware here, so the board's adapter
    may report unavailable and the routed read be answered with that error (a served request all the same).
    """
    import signal
    import socket

    venv_bin = host_venv(wheel) / "bin"
    state = work / "host-state"
    notify = work / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(1.0)
    env = {**os.environ, "NOTIFY_SOCKET": str(notify)}
    cli = [str(venv_bin / "edge-agent"), "--config", str(config), "--state", str(state)]
    log_path = work / "host-daemon.log"
    out: dict[str, object] = {"load_average": os.getloadavg()[0]}
    t0 = time.monotonic()
    with log_path.open("w") as log_fh:
        proc = subprocess.Popen([*cli, "run", "--port", "0"], env=env, stdout=log_fh, stderr=subprocess.STDOUT)
    try:
        ready = False
        while not ready and time.monotonic() - t0 < 300 and proc.poll() is None:
            try:
                ready = b"READY=1" in sock.recv(4096)
            except TimeoutError:
                pass
        if not ready:
            return {"error": f"no READY=1 from the host daemon: {log_path.read_text()[-300:]}"}
        out["start_to_ready_s"] = round(time.monotonic() - t0, 2)

        def status_kb() -> dict[str, int]:
            text = Path(f"/proc/{proc.pid}/status").read_text()
            return {k: int(v.split()[0]) for k, v in (ln.split(":", 1) for ln in text.splitlines())
                    if k in ("VmRSS", "VmHWM")}

        out["rss_kb_ready"] = status_kb()["VmRSS"]
        # READY=1 is sent just before the daemon logs its "ready in" line.
        m = None
        for _ in range(50):
            m = re.search(r"ready in ([\d.]+)s", log_path.read_text())
            if m:
                break
            time.sleep(0.2)
        out["ready_s"] = float(m.group(1)) if m else None
        subprocess.run([*cli, "gpio", "read", "GPIO22", "--adapter", "pi"], capture_output=True, check=False)
        subprocess.run([*cli, "status"], capture_output=True, check=False)
        after = status_kb()
        out["rss_kb_served"], out["hwm_kb"] = after["VmRSS"], after["VmHWM"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        sock.close()
    python = str(venv_bin / "python")
    bare = subprocess.run([python, "-c", "print(open('/proc/self/status').read())"], capture_output=True,
                          text=True, check=True).stdout
    out["bare_python_rss_kb"] = int(re.search(r"VmRSS:\s+(\d+)", bare).group(1))  # type: ignore[union-attr]
    t1 = time.monotonic()
    subprocess.run([python, "-c", "import mcp.server.mcpserver, uvicorn"], check=True)
    out["import_mcp_s"] = round(time.monotonic() - t1, 2)
    return out


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
    parser.add_argument("--no-install", action="store_true",
                        help="skip the documented installs (with --only: a quick run of kernel-level steps)")
    parser.add_argument("--probe", action="append", default=[], metavar="CMD",
                        help="after the setup steps, run this shell command in the guest as root and record its "
                             "output (repeatable; for investigating a failing step)")
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
        share = make_share(work, wheels, args.only, args.no_install, args.probe)
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
        guest_bench = share / "out" / "bench.json"
        if guest_bench.exists() and (share / "out" / "edge-agent.toml").exists():
            log("the same start-up and memory figures on this host (x86 baseline)")
            both = {"arm64_guest": json.loads(guest_bench.read_text()),
                    "x86_host": host_baseline(share / "out" / "edge-agent.toml", work,
                                              next((share / "wheels").glob("edge_agent-*.whl")))}
            (last / "bench.json").write_text(json.dumps(both, indent=1))
            print(json.dumps(both))
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
