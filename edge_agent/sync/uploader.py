"""The sync worker: drains the outbox into Kumiho over gRPC with the official ``kumiho`` SDK, exactly once.

The exactly-once recipe against Kumiho's API, with the reason for each step:

1. One client per worker with the SDK's hidden transport retries off
   (``KUMIHO_GRPC_RETRY_MAX_ATTEMPTS=1``): a retried ``CreateRevision`` whose reply was lost makes a
   second revision, so the outbox owns every retry. Headless: no discovery, no auto-login, no prompt.
2. Project and spaces are ensured first (``BatchCreateRevisions`` does not create spaces).
3. Revisions go through ``BatchCreateRevisions`` (the only documented exactly-once primitive) with
   ``idempotency_prefix`` derived from the device id and the capture ids, at most 200 rows. Row keys
   are positional, so a batch's rows, order and prefix are persisted **before** the call and a batch
   is only ever re-sent unchanged until the server answers it.
4. Edges: ``GetEdges`` on the new revision, then ``CreateEdge`` only for missing ``DERIVED_FROM``
   targets (the server has no edge uniqueness). ``mem://<entry_id>`` sources resolve to that entry's
   revision kref once it is synced (the capture waits while its source is still queued).
5. Tags: custom tags, then ``published`` as the very last write (a published revision is frozen); a
   revision that already reports ``published`` has finished every step and is not touched again.
6. The outbox row is retired, and the kref recorded on the memory entry, only after 3-5 succeeded.

Concurrency: after a batch is answered its captures are finished side by side (up to
FINISH_IN_FLIGHT gRPC futures on the one channel), but each capture's own calls stay strictly
sequential, so its edges and custom tags are answered before its ``published`` is sent; a capture
whose step fails keeps its outbox row and resumes alone. While one batch is being finished, the next
one is persisted and sent on a helper thread (disjoint rows). The rate is set by calls per capture,
not by batching: every custom tag and every edge is one more unary RPC.

Failures: UNAVAILABLE / DEADLINE_EXCEEDED back off (exponential, jitter, cap) without using up a
capture's attempts, so a device can stay offline indefinitely; RESOURCE_EXHAUSTED / INTERNAL / UNKNOWN
/ ABORTED back off and count an attempt; INVALID_ARGUMENT / PERMISSION_DENIED / FAILED_PRECONDITION /
NOT_FOUND / OUT_OF_RANGE move the capture to the dead-letter table with the reason; UNAUTHENTICATED
pauses sync until the token changes; ``max_attempts`` answered failures dead-letter a capture.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from edge_agent.config import Settings
from edge_agent.errors import ConfigError, SyncError
from edge_agent.identity import device_id as resolve_device_id
from edge_agent.identity import read_clock
from edge_agent.jsontypes import JsonObject
from edge_agent.sync.client import (
    AUTH_CODES,
    BUSY_CODES,
    OFFLINE_CODES,
    PERMANENT_CODES,
    UNSUPPORTED_CODES,
    GlobalFailure,
    build_client,
    finishing_stub,
    is_rpc_error,
    load_token,
    resolve_endpoint,
    rpc_code,
    rpc_details,
    token_fingerprint,
)
from edge_agent.sync.finishing import FINISH_IN_FLIGHT, ChannelSilent, Finisher
from edge_agent.sync.repository import OutboxRepository, OutboxRow, RevisionState, StateDatabase
from edge_agent.sync.revisions import (
    SCHEMA,
    item_kref,
    revision_metadata,
    space_for,
)
from edge_agent.sync.spaces import UpstreamPlaces
from edge_agent.sync.status import sync_status

log = logging.getLogger(__name__)

MAX_BATCH = 200  # server cap on BatchCreateRevisions rows

# A row or call refused because the project, a space or a revision is missing upstream.
_MISSING = re.compile(r"does not exist|not found|no such", re.IGNORECASE)

# Names other modules and tests import from here.
__all__ = ["FINISH_IN_FLIGHT", "SCHEMA", "SyncAuthError", "SyncPausedError", "SyncWorker", "build_client",
           "finishing_stub", "resolve_endpoint", "sync_status"]
_finishing_stub = finishing_stub


class SyncAuthError(SyncError, PermissionError):
    """Kumiho refused the token (UNAUTHENTICATED); sync is paused until the token changes."""


class SyncPausedError(SyncError):
    """Sync is paused (server lacks a required RPC); the message says why and what to do."""


class MemoryLink(StateDatabase, Protocol):
    """What the worker needs of the memory store: the database it owns (lent as units of work, in which
    it also records the krefs of entries, and reads) and the kref an entry has."""

    def kref_of(self, entry_id: str) -> str | None: ...


@dataclass
class _Backoff:
    initial: float
    cap: float
    rng: random.Random = field(default_factory=random.Random)
    failures: int = 0

    def next_delay(self) -> float:
        """Exponential delay with 'equal jitter' (half fixed, half random), capped."""
        self.failures += 1
        base = min(self.cap, self.initial * 2.0 ** (self.failures - 1))
        return base / 2 + self.rng.uniform(0, base / 2)

    def reset(self) -> None:
        self.failures = 0



class SyncWorker:
    """Drains the outbox of one memory store to Kumiho; safe to run beside other workers on the same file."""

    def __init__(self, store: MemoryLink, settings: Settings, state_dir: Path, endpoint_override: str | None = None,
                 *, rng: random.Random | None = None, clock: Callable[[], float] = time.time,
                 check_endpoint: bool = True) -> None:
        if check_endpoint:  # a misconfigured endpoint is a startup error, not a retry loop
            resolve_endpoint(settings.kumiho, endpoint_override)
        self.store = store
        self.settings = settings
        self.config = settings.kumiho
        self.state_dir = Path(state_dir)
        self.device_id = resolve_device_id(settings, self.state_dir)
        self.endpoint_override = endpoint_override
        self.db_path = Path(store.db_path)
        self._clock = clock
        self._rng = rng or random.Random()
        self.outbox = OutboxRepository(store, self.config,
                                       lambda payload: space_for(payload, self.config, self.device_id),
                                       clock=self._clock, rng=self._rng)
        self._client: Any = None
        self._client_token: str | None = None
        self._places = UpstreamPlaces(self.config)
        self._backoff = _Backoff(self.config.backoff_initial_s, self.config.backoff_max_s, self._rng)
        self._offline_until = 0.0
        self._link_down: dict[str, Any] | None = None  # since, failed attempts, code: while the link is down
        self._wake = threading.Event()
        self._batch_answers: dict[int, RevisionState] = {}
        self._ahead_pool: ThreadPoolExecutor | None = None
        self._lock_path = Path(f"{self.db_path}.sync-lock")
        self._finisher = Finisher(self.config, self.outbox, store)

    # --- lifecycle --------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the gRPC channel and the batch thread (the database is the memory store's to close)."""
        if self._ahead_pool is not None:
            self._ahead_pool.shutdown(wait=True)
            self._ahead_pool = None
        self._drop_client()

    def __enter__(self) -> SyncWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def notify(self) -> None:
        """Wake a running :meth:`run` loop (e.g. after new captures were queued)."""
        self._wake.set()

    def _drop_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()

    def _get_client(self) -> Any:
        token = load_token(self.config, self.settings.source.parent if self.settings.source else None)
        if self._client is not None and token == self._client_token:
            return self._client
        self._drop_client()
        endpoint = resolve_endpoint(self.config, self.endpoint_override)
        self._client = build_client(endpoint, token, self.config.rpc_timeout_s)
        self._client_token = token
        return self._client

    @contextlib.contextmanager
    def _exclusive(self, wait_s: float) -> Iterator[bool]:
        """Hold the per-database sync lock (one uploader at a time, across processes); yields False on timeout."""
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + wait_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        yield False
                        return
                    time.sleep(0.05)
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _record_global(self, code: str, message: str, *, pause: dict[str, Any] | None = None) -> None:
        self.outbox.record_global(code, message, offline_until=self._offline_until, pause=pause)

    # --- the pass ---------------------------------------------------------------------------------

    def sync_once(self) -> int:
        """One upload pass; returns how many captures were completed.

        A pass finishes the captures whose revisions exist upstream while the next batch is sent beside
        it; with nothing to finish, it sends a batch first and then finishes that batch.

        Raises SyncAuthError when the server refuses the token and SyncPausedError when it lacks a
        required RPC; transient failures only schedule a retry (see :meth:`status`).
        """
        with self._exclusive(wait_s=30.0) as got:
            if not got:
                return 0
            return self._pass()

    def _pass(self) -> int:
        now = self._clock()
        if now < self._offline_until <= now + self.config.backoff_max_s:
            return 0  # (a wait longer than the cap means the wall clock stepped back: retry now)
        self._apply_pending_krefs()
        try:
            client = self._get_client()
        except ValueError as exc:  # SDK refusing the endpoint (e.g. plaintext off-host)
            raise ConfigError(f"kumiho endpoint rejected by the SDK: {exc}") from None
        done = 0
        try:
            sent = False
            finishing = self._finishing_rows(now)
            if not finishing:
                sent = self._send_next(client, now)
                finishing = self._finishing_rows(now)
            self._finisher.resolve_all(client, finishing)
            # The next batch goes out while this pass finishes the captures already answered: the
            # server creates its revisions while the finishing calls wait on the wire. The two sets of
            # rows are disjoint (a row is either still without a revision kref or already has one).
            ahead = self._ahead().submit(self._send_next, client, now) if finishing else None
            try:
                done = self._finish(client, finishing)
            finally:
                if ahead is not None:
                    sent = ahead.result() or sent  # its failure (if any) is raised here
        except GlobalFailure as failure:
            self._handle_global(failure)
            return done
        if done or sent:
            self._backoff.reset()
            self._clear_pause()
            self._link_up()
        self._apply_pending_krefs()
        return done

    def _ahead(self) -> ThreadPoolExecutor:
        if self._ahead_pool is None:
            self._ahead_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kumiho-batch")
        return self._ahead_pool

    def _send_next(self, client: Any, now: float) -> bool:
        """Persist and send the next batch (or replay an unanswered one); False if there was none."""
        rows = self._next_batch(client, now)
        if rows:
            self._send_batch(client, rows)
        return bool(rows)

    def _clear_pause(self) -> None:
        # The server answered: whatever paused sync (token, missing RPC) is resolved.
        paused = self.outbox.state("paused")
        if paused:
            self.outbox.set_states(paused=None)
            log.info("kumiho sync: resumed (%s pause cleared)", paused.get("reason"))

    # --- step 3: batches --------------------------------------------------------------------------

    def _next_batch(self, client: Any, now: float) -> list[OutboxRow]:
        """The rows to send: an unanswered batch replayed as persisted, else a new batch persisted first."""
        for batch_id, _prefix, count in self.outbox.pending_batches():
            rows = self.outbox.batch_rows(batch_id)
            if len(rows) != count or [r.batch_index for r in rows] != list(range(count)):
                # Cannot happen through this module (batch rows move together); refuse to guess.
                raise SyncError(f"sync batch {batch_id} is incomplete in the outbox; run `edge-agent sync status`")
            if any(now < r.not_before <= now + self.config.backoff_max_s for r in rows):
                continue  # an answered failure scheduled its retry; other captures need not wait behind it
            self._places.ensure_project(client)
            for space in {r.space for r in rows}:
                reason = self._places.ensure_space(client, space)
                if reason:
                    # The rows are bound to this batch; they wait (attempt counted) rather than re-batch.
                    self.outbox.fail_rows(rows, "FAILED_PRECONDITION", reason, answered=True)
                    return []
            return rows
        limit = min(self.config.batch_size, MAX_BATCH)
        candidates = self.outbox.unbatched_due(now, limit)
        if not candidates:
            return []
        if candidates[0].solo:  # after a whole-batch rejection: one capture per call to isolate the bad one
            candidates = candidates[:1]
        else:
            candidates = candidates[:next((i for i, c in enumerate(candidates) if c.solo), len(candidates))]
        self._places.ensure_project(client)
        keep: list[OutboxRow] = []
        dead: list[tuple[OutboxRow, str, str]] = []
        for row in candidates:
            reason = self._places.ensure_space(client, row.space)
            if reason:
                dead.append((row, reason.split(":", 1)[0], reason))
            else:
                keep.append(row)
        if dead:
            self.outbox.dead_letter(dead, keep_batch=False)
        if not keep:
            return []
        ids = [r.capture_id for r in keep]
        if len(keep) == 1:
            prefix = f"{self.device_id}:{ids[0]}"
        else:
            prefix = f"{self.device_id}:b-{hashlib.sha256(chr(10).join(ids).encode()).hexdigest()[:32]}"
        self.outbox.persist_batch(prefix, prefix, keep)
        return keep

    def _send_batch(self, client: Any, rows: list[OutboxRow]) -> None:
        batch_id = rows[0].batch_id
        assert batch_id is not None
        prefix = self.outbox.batch_prefix(batch_id)
        clock = read_clock()
        specs = [
            {"item_kref": item_kref(self.config.project, r.space, r.capture_id),
             "metadata": revision_metadata(r.payload, r.space, clock)}
            for r in rows
        ]
        try:
            results, failures = client.batch_create_revisions(specs, idempotency_prefix=prefix)
        except Exception as exc:
            if not is_rpc_error(exc):
                raise
            code = rpc_code(exc)
            if code == "NOT_FOUND" or (code in PERMANENT_CODES and _MISSING.search(rpc_details(exc))):
                # Nothing committed, and the server no longer has the project or a space: ensure them again.
                self._places.forget(rpc_details(exc))
                self.outbox.requeue(rows, code, rpc_details(exc))
                return
            if code in PERMANENT_CODES:
                # The server rejected the whole call, so nothing committed: split it up, then dead-letter.
                if len(rows) > 1:
                    self.outbox.split_batch(batch_id, rows, code, f"batch of {len(rows)} rejected "
                                            f"({rpc_details(exc)}); retrying its captures one by one")
                else:
                    self.outbox.dead_letter([(rows[0], code, rpc_details(exc))], keep_batch=False)
                return
            if code in BUSY_CODES:
                self.outbox.fail_rows(rows, code, rpc_details(exc), answered=True)
            raise GlobalFailure.wrap(exc, "BatchCreateRevisions") from None
        failed = dict(failures)
        dead: list[tuple[OutboxRow, str, str]] = []
        lost: list[OutboxRow] = []
        answered: list[OutboxRow] = []
        for i, row in enumerate(rows):
            rev = results[i] if i < len(results) else None
            if i in failed or rev is None:
                reason = failed.get(i, "no result for this row")
                if _MISSING.search(reason):
                    lost.append(row)  # its space is gone upstream: ensure it again and resend
                else:
                    dead.append((row, "ROW_REJECTED", reason))
                continue
            # Read the answer now: the SDK's Revision.tags re-fetches (a blocking call) once it is 5 s old.
            row.revision_kref = str(rev.kref)
            row.revision = RevisionState(row.revision_kref, bool(rev.published), frozenset(rev.tags or ()))
            answered.append(row)
        self.outbox.record_answers(batch_id, answered)
        if lost:
            reason = failed.get(rows.index(lost[0]), "")
            self._places.forget(reason)
            self.outbox.requeue(lost, "ROW_REJECTED", reason)
        if dead:
            # Rejected rows did not commit under their key: they may join a new batch after retry-dead.
            self.outbox.dead_letter(dead, keep_batch=False)
        self._batch_answers = {r.seq: r.revision for r in rows if r.revision is not None}

    # --- steps 4-6: edges, tags, retire -----------------------------------------------------------

    def _finishing_rows(self, now: float) -> list[OutboxRow]:
        """Due rows whose revision exists upstream, with the batch answers at hand (taken, not shared)."""
        rows = self.outbox.finishing_due(now, max(self.config.batch_size, 1) * 2)
        answers, self._batch_answers = self._batch_answers, {}
        for r in rows:
            r.revision = answers.get(r.seq)
        return rows

    def _finish(self, client: Any, rows: list[OutboxRow]) -> int:
        if not rows:
            return 0
        try:
            outcomes = self._finisher.run(client, rows)
        except ChannelSilent as exc:
            raise GlobalFailure("DEADLINE_EXCEEDED", str(exc)) from None
        done = [o for o in outcomes if o.status == "done"]
        if done:
            # Retiring the rows and recording each entry's kref is one commit: one unit of work of the memory
            # store, which writes the krefs itself.
            self.outbox.retire([o.row for o in done], sum(o.skipped_edges for o in done))
        lost = [o for o in outcomes if o.status == "gone"]
        if lost:
            # The server no longer has these revisions (it restarted empty): create them again.
            self._places.forget(lost[0].reason)
            self.outbox.requeue([o.row for o in lost], lost[0].code, lost[0].reason)
        deferred = [o.row for o in outcomes if o.status == "defer"]
        if deferred:
            self.outbox.defer(deferred, 0.2)
        dead = [(o.row, o.code, o.reason) for o in outcomes if o.status == "dead"]
        if dead:
            self.outbox.dead_letter(dead, keep_batch=False)
        for o in outcomes:
            if o.status == "retry":
                self.outbox.fail_rows([o.row], o.code, o.reason, answered=True)
        for status in ("auth", "unsupported", "offline"):
            hit = next((o for o in outcomes if o.status == status), None)
            if hit is not None:
                raise GlobalFailure(hit.code, hit.reason)
        return len(done)

    def _apply_pending_krefs(self) -> int:
        """Write krefs left in the ledger by an earlier version onto their memory entries, then forget them."""
        pending = self.outbox.ledger_krefs()
        applied = []
        for capture_id, entry_id, kref in pending:
            if entry_id:
                try:
                    with self.store.unit_of_work("recording a kref") as uow:
                        uow.record_krefs([(entry_id, kref)])
                except Exception as exc:  # noqa: BLE001 - the entry may be gone; keep the kref for mem:// lookups
                    log.warning("recording kref for entry %s failed: %s", entry_id, exc)
                    continue
            applied.append(capture_id)
        if applied:
            self.outbox.drop_ledger_krefs(applied)
        return len(applied)

    # --- failure bookkeeping ----------------------------------------------------------------------

    def retry_dead(self, capture_ids: list[str] | None = None) -> int:
        """Move dead letters (all, or these captures and their batch siblings) back into the outbox."""
        n = self.outbox.retry_dead(capture_ids)
        self._offline_until = 0.0
        self._backoff.reset()
        return n

    def _handle_global(self, failure: GlobalFailure) -> None:
        code, message = failure.code, failure.message
        if code in AUTH_CODES:
            self._record_global(code, message, pause={
                "reason": "auth", "code": code, "since": self._clock(),
                "token": token_fingerprint(self._client_token),
                "message": "Kumiho refused the token; sync is paused until KUMIHO_AUTH_TOKEN or "
                           "[kumiho] token_file changes (captures keep queueing)"})
            self._drop_client()
            raise SyncAuthError(
                "Kumiho refused the bearer token (UNAUTHENTICATED); sync is paused and captures keep queueing. "
                "Renew the token (KUMIHO_AUTH_TOKEN or [kumiho] token_file), then run `edge-agent sync now`"
            )
        if code in UNSUPPORTED_CODES:
            self._record_global(code, message, pause={
                "reason": "unsupported", "code": code, "since": self._clock(), "message": message})
            raise SyncPausedError(
                f"the Kumiho server does not implement an RPC the sync needs ({message}); sync is paused. "
                "Upgrade the server, or point [kumiho] endpoint at one that supports BatchCreateRevisions"
            )
        delay = self._backoff.next_delay()
        self._offline_until = self._clock() + delay
        if code not in OFFLINE_CODES:
            self._record_global(code, f"{message}; next attempt in {delay:.1f}s")
            log.info("kumiho sync: %s (%s); next attempt in %.1fs", code, message, delay)
            return
        # A failed channel sits in gRPC's own reconnect backoff; start fresh on the next attempt.
        self._drop_client()
        self._places.project_ok = False
        down = self._link_down
        first = down is None
        if down is None:
            down = self._link_down = {"since": self._clock(), "failures": 0, "code": code}
        down["failures"] += 1
        self.outbox.record_global(code, f"{message}; next attempt in {delay:.1f}s",
                                  offline_until=self._offline_until, link_down=down)
        if first:  # one warning per outage; the retries behind it are quiet (see `sync status`)
            counts = self.outbox.counts()
            log.warning("kumiho sync: link to %s is down (%s: %s); %d capture(s) queued, %d dead letter(s); "
                        "retrying quietly with backoff up to %gs", self._endpoint(), code, message[:200],
                        counts.queued, counts.dead_letters, self.config.backoff_max_s)
        else:
            log.debug("kumiho sync: still offline (%s, attempt %d); next attempt in %.1fs", code,
                      down["failures"], delay)

    def _link_up(self) -> None:
        """The server answered: end an outage (one line, with what it cost and what is left)."""
        down = self._link_down or self.outbox.state("link_down")
        if not down:
            return
        self._link_down = None
        self.outbox.set_states(link_down=None)
        counts = self.outbox.counts()
        log.info("kumiho sync: link to %s is back after %.0fs offline (%d failed attempt(s)); %d capture(s) "
                 "queued, %d in flight, %d dead letter(s)", self._endpoint(),
                 max(self._clock() - float(down.get("since", self._clock())), 0.0), int(down.get("failures", 0)),
                 counts.queued, counts.in_flight, counts.dead_letters)

    def _endpoint(self) -> str:
        try:
            return resolve_endpoint(self.config, self.endpoint_override)
        except ConfigError:
            return "(invalid endpoint)"

    # --- loops ------------------------------------------------------------------------------------

    def pending(self) -> int:
        """Captures in the outbox (not counting dead letters)."""
        return self.outbox.pending()

    def _next_due(self) -> float:
        due = self.outbox.next_due()
        if due is None:
            due = self._clock() + self.config.sync_interval_s
        return max(due, self._offline_until)

    def sync_until_empty(self, deadline_s: float = 60.0, stop: threading.Event | None = None) -> bool:
        """Sync until the outbox is empty (True) or the deadline passes (False); raises on auth/pause."""
        stop = stop or threading.Event()
        end = time.monotonic() + deadline_s
        with self._exclusive(wait_s=deadline_s) as got:
            if not got:
                return False
            while not stop.is_set():
                done = self._pass()
                if self.pending() == 0:
                    return True
                if time.monotonic() >= end:
                    return False
                if done == 0:
                    wait = min(max(self._next_due() - self._clock(), 0.01), end - time.monotonic())
                    if wait > 0:
                        stop.wait(wait)
        return self.pending() == 0

    def run(self, stop: threading.Event) -> None:
        """Background loop: sync when captures are due, back off when offline, stay paused on auth failure."""
        while not stop.is_set():
            self._wake.clear()
            wait = self.config.sync_interval_s
            try:
                paused = self._paused()
                if paused is None:
                    with self._exclusive(wait_s=0) as got:
                        done = self._pass() if got else 0
                    if done:
                        continue
                    wait = min(wait, max(self._next_due() - self._clock(), 0.05))
            except (SyncAuthError, SyncPausedError) as exc:
                log.warning("%s", exc)
            except ConfigError as exc:
                log.error("kumiho sync configuration: %s", exc)
            except Exception:  # noqa: BLE001 - the loop must survive anything and report it
                log.exception("kumiho sync pass failed")
            end = time.monotonic() + wait
            while not stop.is_set() and not self._wake.is_set() and time.monotonic() < end:
                stop.wait(min(0.25, max(end - time.monotonic(), 0)))

    def _paused(self) -> dict[str, Any] | None:
        paused = self.outbox.state("paused")
        if not paused or not isinstance(paused, dict):  # stored as an object, or None once resumed
            return None
        if paused.get("reason") == "auth":
            try:
                token = load_token(self.config, self.settings.source.parent if self.settings.source else None)
            except ConfigError:
                return paused
            if token_fingerprint(token) != paused.get("token"):
                self.outbox.set_states(paused=None)
                log.info("kumiho sync: token changed; resuming")
                return None
        return dict(paused)

    # --- status -----------------------------------------------------------------------------------

    def status(self) -> JsonObject:
        """Queue sizes, last success/error, pause and screening counters (never the token)."""
        with self.outbox.reading() as conn:
            return sync_status(conn, self.settings, self.state_dir, device=self.device_id,
                               endpoint_override=self.endpoint_override)
