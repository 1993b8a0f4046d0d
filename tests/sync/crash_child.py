"""Child process for the crash test: records captures and syncs them until it is SIGKILLed.

Usage: crash_child.py STATE ENDPOINT SEED work|drain

`work` prints "ready", then records captures (some deriving from earlier ones, across runs) while a
background sync worker uploads; after each capture is acknowledged (committed) it prints
"ack <capture_id> <entry_id> <source entry ids...>". `drain` syncs until the outbox is empty and prints
"drained True|False". Output lines are single small writes, so a kill never leaves a partial ack line
that parses.
"""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path

from edge_agent.config import Settings
from edge_agent.memory import Capture, MemoryStore
from edge_agent.sync import OutboxSink, SyncWorker


def main(state: str, endpoint: str, seed: int, mode: str) -> int:
    settings = Settings.model_validate({
        "device": {"id": "crash-pi"},
        "kumiho": {"enabled": True, "endpoint": endpoint, "backoff_initial_s": 0.01, "backoff_max_s": 0.05,
                   "rpc_timeout_s": 20.0, "batch_size": 7},  # a loaded machine, not a fault
    })
    state_dir = Path(state)
    store = MemoryStore.open(state_dir, settings, capture_sink=OutboxSink(settings, state_dir))
    worker = SyncWorker(store, settings, state_dir)
    if mode == "drain":
        ok = worker.sync_until_empty(deadline_s=40)
        print(f"drained {ok}", flush=True)
        worker.close()
        store.close()
        return 0 if ok else 1
    rng = random.Random(seed)
    stop = threading.Event()
    threading.Thread(target=worker.run, args=(stop,), daemon=True).start()
    conn = store.new_connection(read_only=True)
    print("ready", flush=True)
    for i in range(10_000):
        known = [r[0] for r in conn.execute("SELECT entry_id FROM captures ORDER BY random() LIMIT 2")]
        sources = known[: rng.randint(0, len(known))]
        if rng.random() < 0.2:  # a reflect with several captures: one transaction
            caps = [Capture(type="fact", title=f"r{seed}-{i}-{k}", content=f"reflect {seed}/{i}/{k}",
                            source_refs=tuple(f"mem://{s}" for s in sources)) for k in range(3)]
            out = store.captures.reflect(f"s{seed}", "ok", captures=caps)
            for c, src in zip(out["captures"], [sources] * 3, strict=True):
                print(f"ack {c['capture_id']} {c['entry_id']} {' '.join(src)}".strip(), flush=True)
        else:
            cap = store.captures.record_capture(Capture(
                type="fact", title=f"c{seed}-{i}", content=f"capture {seed}/{i}", tags=("crash",),
                source_refs=tuple(f"mem://{s}" for s in sources)))
            print(f"ack {cap.id} {cap.entry_id} {' '.join(sources)}".strip(), flush=True)
        worker.notify()
        stop.wait(rng.uniform(0, 0.01))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
