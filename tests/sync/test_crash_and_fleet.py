"""Proof of exactly-once under SIGKILL and server faults, and a 20-device fleet on one server."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from edge_agent.memory import Capture

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 18
SEED = int(os.environ.get("EDGE_AGENT_CRASH_SEED", "20261121"))  # vary it to explore other kill points


def _run_child(state: Path, endpoint: str, seed: int, mode: str, kill_after: float | None,
               outage: tuple[float, float] | None = None, server=None) -> list[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, str(CHILD), str(state), endpoint, str(seed), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            if line.endswith("\n"):
                lines.append(line.strip())
                if line.startswith(("ready", "drained")):
                    ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if kill_after is None:
            proc.wait(timeout=60)
        else:
            assert ready.wait(30), "child never became ready"
            if outage:  # the server vanishes mid-run: refused connections, in-flight calls cut off
                time.sleep(outage[0])
                server.go_offline()
                time.sleep(outage[1])
                server.go_online()
            time.sleep(kill_after)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    return lines


@pytest.mark.slow
def test_acknowledged_captures_reach_kumiho_exactly_once_across_sigkills_and_faults(server, tmp_path):
    state = tmp_path / "crash-state"
    state.mkdir()
    rng = random.Random(SEED)
    f = server.faults
    f.rng = random.Random(SEED + 7)
    f.pre_commit_failure_rate, f.post_commit_failure_rate = 0.1, 0.1
    acks: dict[str, tuple[str, list[str]]] = {}  # capture id -> (entry id, source entry ids)
    for run in range(KILLS):
        outage = (rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)) if run % 4 == 3 else None
        for line in _run_child(state, server.endpoint, run, "work", kill_after=rng.uniform(0.05, 0.7),
                               outage=outage, server=server):
            if line.startswith("ack "):
                cid, eid, *sources = line.split()[1:]
                acks[cid] = (eid, sources)
    assert len(acks) > 50, "the children did not get far enough to test anything"
    f.pre_commit_failure_rate, f.post_commit_failure_rate = 0.05, 0.05
    assert _run_child(state, server.endpoint, 999, "drain", kill_after=None)[-1] == "drained True"
    # The faults did happen. Counted over the drain too: on a loaded machine the killed children may have
    # made too few calls for a 10% fault rate to have struck one, and the drain's own faults count the same.
    assert sum(1 for c in server.servicer.calls if c.outcome == "lost") > 0

    by_capture = server.servicer.revisions_by_capture()
    # Exactly once: every capture upstream (acknowledged or committed just before a kill) has one revision.
    assert {cid: len(v) for cid, v in by_capture.items() if len(v) != 1} == {}
    missing = sorted(set(acks) - set(by_capture))
    assert missing == [], f"{len(missing)} acknowledged captures never arrived"
    # Every capture (acked or not) that committed locally is upstream too, and nothing else is.
    conn = sqlite3.connect(next(state.glob("workspaces/*/memory/memory.db")))
    local = {cid: (eid, kref) for cid, eid, kref in conn.execute(
        "SELECT c.id, c.entry_id, e.kref FROM captures c JOIN entries e ON e.id = c.entry_id")}
    assert set(local) == set(by_capture)
    entry_to_rev = {eid: by_capture[cid][0] for cid, (eid, _) in local.items()}
    for cid, (_eid, kref) in local.items():
        rev = by_capture[cid][0]
        assert kref == rev, "the local entry must record its revision kref"
        assert server.servicer.revision(rev).published
    for cid, (_eid, sources) in acks.items():
        rev = by_capture[cid][0]
        expected = Counter(entry_to_rev[s] for s in dict.fromkeys(sources))
        assert Counter(server.servicer.edges_from(rev)) == expected, f"edges of {cid}"
    assert conn.execute("SELECT count(*) FROM sync_outbox").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM sync_dead").fetchone()[0] == 0
    conn.close()


@pytest.mark.slow
def test_a_fleet_of_20_devices_syncs_concurrently_without_duplicates(server, make_device):
    f = server.faults
    f.rng = random.Random(3)
    f.pre_commit_failure_rate, f.post_commit_failure_rate = 0.05, 0.05
    fleet = [make_device(server, device_id=f"fleet-{n:02d}", batch_size=10) for n in range(20)]
    expected: dict[str, tuple[str, list[str]]] = {}
    for dev in fleet:
        previous: list[Capture] = []
        for i in range(15):
            refs = tuple(f"mem://{c.entry_id}" for c in previous[-2:]) if i % 3 == 2 else ()
            cap = dev.capture(f"{dev.settings.device.id} reading {i}", source_refs=refs)
            expected[cap.id] = (dev.settings.device.id, [r[6:] for r in refs])
            previous.append(cap)
    results: dict[str, bool] = {}

    def sync(dev) -> None:
        results[dev.settings.device.id] = dev.worker.sync_until_empty(deadline_s=60)

    threads = [threading.Thread(target=sync, args=(d,)) for d in fleet]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert results == {d.settings.device.id: True for d in fleet}
    by_capture = server.servicer.revisions_by_capture()
    assert set(by_capture) == set(expected)
    assert Counter(len(v) for v in by_capture.values()) == {1: len(expected)}
    entry_rev = {}
    for dev in fleet:
        for cid, (device_id, _) in expected.items():
            if device_id == dev.settings.device.id:
                rev = by_capture[cid][0]
                assert f"/Devices/{device_id}/" in rev
                assert server.servicer.revision(rev).metadata["device_id"] == device_id
        conn = sqlite3.connect(dev.store.db_path)
        entry_rev.update(dict(conn.execute("SELECT id, kref FROM entries WHERE kref IS NOT NULL")))
        conn.close()
    for cid, (_device, sources) in expected.items():
        assert Counter(server.servicer.edges_from(by_capture[cid][0])) == Counter(entry_rev[s] for s in sources)
