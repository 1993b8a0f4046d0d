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
import json
import logging
import os
import queue
import random
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from edge_agent.config import KumihoConfig, Settings
from edge_agent.errors import BackendUnavailable, ConfigError, SyncError
from edge_agent.identity import ClockReading, corrected_wall_time, read_clock
from edge_agent.identity import device_id as resolve_device_id
from edge_agent.sync.outbox import bump_state, ensure_schema, get_state, read_screening, set_state

log = logging.getLogger(__name__)

SCHEMA = "kumiho.agent_memory.v1"
ITEM_KIND = "conversation"
EDGE_TYPE = "DERIVED_FROM"
PUBLISHED = "published"
MAX_BATCH = 200  # server cap on BatchCreateRevisions rows
SUMMARY_MAX = 2000
TITLE_MAX = 120
LOCAL_CE_ENDPOINT = "127.0.0.1:9190"
# Captures finished concurrently after a batch: each runs its own steps strictly in order (edges and
# custom tags, then `published`), while up to this many captures each have one call in flight.
FINISH_IN_FLIGHT = 32
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

# gRPC status names by how the outbox treats them.
OFFLINE_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED"})
BUSY_CODES = frozenset({"RESOURCE_EXHAUSTED", "INTERNAL", "UNKNOWN", "ABORTED"})
PERMANENT_CODES = frozenset({"INVALID_ARGUMENT", "PERMISSION_DENIED", "FAILED_PRECONDITION", "NOT_FOUND",
                             "OUT_OF_RANGE", "ALREADY_EXISTS", "DATA_LOSS"})
AUTH_CODES = frozenset({"UNAUTHENTICATED"})
UNSUPPORTED_CODES = frozenset({"UNIMPLEMENTED"})
_REVISION_KREF = re.compile(r"^kref://[^?\s]+\.[^/?\s]+\?r=\d+$")
_ENV_LOCK = threading.Lock()
# A row is due when its retry time has come, or lies further ahead than any backoff could put it: the
# wall clock stepped back (an RTC-less board whose clock NTP just corrected) and it must not wait years.
_DUE = "(next_attempt_at <= ? OR next_attempt_at > ?)"


class SyncAuthError(SyncError, PermissionError):
    """Kumiho refused the token (UNAUTHENTICATED); sync is paused until the token changes."""


class SyncPausedError(SyncError):
    """Sync is paused (server lacks a required RPC); the message says why and what to do."""


# --- connection settings --------------------------------------------------------------------------


def resolve_endpoint(config: KumihoConfig, override: str | None = None) -> str:
    """The gRPC target to use; ConfigError unless TLS is used for every non-loopback host."""
    raw = (override or config.endpoint or (LOCAL_CE_ENDPOINT if config.mode == "local_ce" else "")).strip()
    source = "--kumiho-endpoint" if override else "kumiho.endpoint"
    if not raw:
        raise ConfigError(
            "kumiho.endpoint is empty: set it to the Kumiho gRPC endpoint, e.g. endpoint = "
            "\"https://us-central.kumiho.cloud\", or mode = \"local_ce\" for a community server on this device"
        )
    parsed = urlparse(raw if "://" in raw else f"//{raw}")
    scheme = parsed.scheme.lower() if "://" in raw else ""
    try:
        host, port = parsed.hostname, parsed.port
    except ValueError:
        host, port = None, None
    if not host or scheme not in ("", "https", "grpcs", "http", "grpc"):
        raise ConfigError(f"{source} {raw!r} is not HOST:PORT or https://HOST[:PORT]")
    tls = scheme in ("https", "grpcs") or port == 443 or (port is None and scheme == "")
    if port is None and scheme == "":
        raw = f"https://{host}"  # a bare host means the TLS default port
    loopback = host.lower() in LOOPBACK_HOSTS
    if not loopback and not tls:
        raise ConfigError(
            f"{source} {raw!r}: TLS is required for a non-loopback Kumiho endpoint (tokens would cross the "
            "network in clear text); use https://HOST or port 443"
        )
    if config.mode == "local_ce" and not loopback:
        raise ConfigError(
            f"{source} {raw!r}: mode 'local_ce' talks to a community server on this device only "
            "(it has no authentication and must never be exposed); use a loopback address or mode = 'cloud'"
        )
    return raw


def load_token(config: KumihoConfig, base: Path | None = None) -> str | None:
    """The bearer token: ``KUMIHO_AUTH_TOKEN``, else ``[kumiho] token_file``; None when neither is set."""
    env = os.environ.get("KUMIHO_AUTH_TOKEN", "").strip()
    if env:
        return env
    if not config.token_file:
        return None
    path = Path(os.path.expanduser(config.token_file))
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(
            f"kumiho.token_file {str(path)!r} cannot be read ({exc.strerror}); write the token there "
            "(mode 0600) or set KUMIHO_AUTH_TOKEN"
        ) from None
    if not token:
        raise ConfigError(f"kumiho.token_file {str(path)!r} is empty; write the bearer token into it")
    return token


def token_fingerprint(token: str | None) -> str:
    """A short non-reversible tag for a token, to notice changes without keeping or logging the token."""
    return hashlib.sha256((token or "").encode()).hexdigest()[:12] if token else "none"


def build_client(endpoint: str, token: str | None, rpc_timeout_s: float) -> Any:
    """A headless SDK client: no discovery, no auto-login, no prompt, SDK retries off, TLS required off-host."""
    try:
        import kumiho  # the `kumiho` extra; imported here so the base install needs no gRPC
    except ImportError as exc:
        raise BackendUnavailable(
            f"upstream sync needs the kumiho SDK ({exc.name} is missing): pip install 'edge-agent[kumiho]'"
        ) from None

    with _ENV_LOCK:
        # Read by the SDK's interceptors when the client is built, hence set first, under a lock.
        os.environ["KUMIHO_GRPC_RETRY_MAX_ATTEMPTS"] = "1"
        os.environ["KUMIHO_NO_INTERACTIVE_LOGIN"] = "1"
        os.environ["KUMIHO_DISABLE_AUTO_DISCOVERY"] = "1"
        os.environ["KUMIHO_REQUIRE_TLS"] = "1"
        os.environ["KUMIHO_RPC_TIMEOUT_SECS"] = f"{rpc_timeout_s:g}"
        # token="" (not None) keeps the SDK from loading ~/.kumiho credentials on its own.
        return kumiho.connect(endpoint=endpoint, token=token or "", use_discovery=False, enable_auto_login=False)


# --- helpers --------------------------------------------------------------------------------------


def _code(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    try:
        value = code() if callable(code) else None
    except Exception:  # noqa: BLE001 - a broken error object must not crash the worker
        value = None
    return getattr(value, "name", None) or "UNKNOWN"


def _details(exc: BaseException) -> str:
    details = getattr(exc, "details", None)
    try:
        text = details() if callable(details) else str(exc)
    except Exception:  # noqa: BLE001
        text = str(exc)
    return (text or "").replace("\n", " ")[:300]


def _is_rpc_error(exc: BaseException) -> bool:
    import grpc

    return isinstance(exc, grpc.RpcError)


def _finishing_stub(client: Any) -> Any:
    """The SDK's generated stub on the SDK's channel, entered below its transient-retry interceptor.

    That interceptor is the outermost layer of the channel the SDK builds; even with one attempt it
    waits for each call's status before returning, which turns a gRPC future into a blocking call. The
    layers beneath it (authorization header, correlation id) stay in place, so the finishing calls
    carry the same metadata, cannot be retried behind the outbox's back, and can be in flight
    together. Their deadline is then set per call (``rpc_timeout_s``). Should a future SDK wrap its
    channel differently, the SDK's own stub is used: still correct, just one call at a time.
    """
    channel = getattr(client, "channel", None)
    inner = getattr(channel, "_channel", None)
    if inner is not None and type(getattr(channel, "_interceptor", None)).__name__ == "_TransientRetryInterceptor":
        from kumiho.proto import kumiho_pb2_grpc

        return kumiho_pb2_grpc.KumihoServiceStub(inner)
    return client.stub


_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def slug_segment(text: str, max_len: int = 64) -> str:
    """A kref-safe path segment, slugified the way Kumiho's memory tools do (casefold, non-word runs -> '-')."""
    base = _NON_WORD.sub("-", text.casefold().strip()).strip("-")
    if len(base) > max_len:  # keep long names distinct: a wrong merge of two spaces is unrecoverable
        base = f"{base[: max_len - 9].rstrip('-')}-{hashlib.sha1(base.encode()).hexdigest()[:8]}"
    return base or "unnamed"


def space_for(payload: dict[str, Any], config: KumihoConfig, device: str) -> str:
    """The capture's space below the project: slugified space_hint, else [kumiho] space_path, else Devices/<id>."""
    hint = payload.get("space_hint") or ""
    if hint:
        return "/".join(slug_segment(p) for p in hint.split("/") if p.strip())
    if config.space_path:
        return config.space_path.strip("/")
    return f"Devices/{slug_segment(device)}"


def revision_metadata(payload: dict[str, Any], space: str, now: ClockReading | None = None) -> dict[str, str]:
    """Revision metadata in the shape Kumiho's memory tools write, plus device provenance."""
    md: dict[str, str] = {}
    for k, v in (payload.get("metadata") or {}).items():
        md[str(k)] = v if isinstance(v, str) else json.dumps(v)
    content = payload.get("content") or ""
    md.update({
        "schema": SCHEMA,
        "memory_type": payload.get("type") or "summary",
        "title": (payload.get("title") or content[:TITLE_MAX]) or "(untitled)",
        "summary": content[:SUMMARY_MAX],
        "space": space,
        "capture_id": payload["id"],
        "origin": "edge-agent",
        "importance": f"{float(payload.get('importance', 0.5)):g}",
    })
    if len(content) > SUMMARY_MAX:
        md["content_truncated"] = "true"
    for key in ("entry_id", "session_id", "created_at"):
        if payload.get(key):
            md[key] = str(payload[key])
    if payload.get("tags"):
        md["tags"] = json.dumps(list(payload["tags"]))
    md.pop("type", None)  # reserved by the server; memory_type carries it
    if now is not None and md.get("clock_synced") == "false":
        try:
            captured = ClockReading(md.get("boot_id", ""), int(md.get("monotonic_ns", "0")), md.get("wall_time", ""),
                                    False)
            fixed = corrected_wall_time(captured, now)
        except ValueError:
            fixed = None
        if fixed:
            md["wall_time_corrected"] = fixed
    return md


@dataclass(frozen=True)
class _RevState:
    """What the finishing steps need to know of a revision: its kref, whether it is published, its tags."""

    kref: str
    published: bool
    tags: frozenset[str]


@dataclass(frozen=True)
class _Call:
    """One unary RPC a capture's finishing steps want made next: stub method name and request."""

    method: str
    request: Any


_Steps = Generator[_Call, Any, "_Outcome"]


@dataclass
class _Row:
    seq: int
    capture_id: str
    entry_id: str | None
    payload: dict[str, Any]
    attempts: int
    batch_id: str | None
    batch_index: int | None
    revision_kref: str | None
    solo: bool = False
    space: str = ""
    revision: _RevState | None = None  # from the batch answer of this pass, when at hand
    sources: tuple[list[str], int, bool] | BaseException | None = None  # resolved before finishing starts
    not_before: float = 0.0


@dataclass
class _Outcome:
    row: _Row
    status: str  # "done", "retry", "defer", "dead", "auth", "offline", "unsupported"
    code: str = ""
    reason: str = ""
    skipped_edges: int = 0


@dataclass
class _Backoff:
    initial: float
    cap: float
    rng: random.Random = field(default_factory=random.Random)
    failures: int = 0

    def next_delay(self) -> float:
        """Exponential delay with 'equal jitter' (half fixed, half random), capped."""
        self.failures += 1
        base = min(self.cap, self.initial * 2 ** (self.failures - 1))
        return base / 2 + self.rng.uniform(0, base / 2)

    def reset(self) -> None:
        self.failures = 0


class SyncWorker:
    """Drains the outbox of one memory store to Kumiho; safe to run beside other workers on the same file."""

    def __init__(self, store: Any, settings: Settings, state_dir: Path, endpoint_override: str | None = None, *,
                 rng: random.Random | None = None, clock: Callable[[], float] = time.time,
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
        self._conn = sqlite3.connect(str(self.db_path), isolation_level=None, check_same_thread=False, timeout=30)
        self._conn.execute("PRAGMA busy_timeout = 30000")
        self._conn.execute("PRAGMA synchronous = FULL")
        ensure_schema(self._conn)
        self._db_lock = threading.RLock()
        self._client: Any = None
        self._client_token: str | None = None
        self._project_ok = False
        self._spaces: set[str] = set()
        self._backoff = _Backoff(self.config.backoff_initial_s, self.config.backoff_max_s, self._rng)
        self._offline_until = 0.0
        self._wake = threading.Event()
        self._batch_answers: dict[int, _RevState] = {}
        self._ahead_pool: ThreadPoolExecutor | None = None
        self._entries_table: bool | None = None
        self._lock_path = Path(f"{self.db_path}.sync-lock")

    # --- lifecycle --------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the gRPC channel, the batch thread and the database connection."""
        if self._ahead_pool is not None:
            self._ahead_pool.shutdown(wait=True)
            self._ahead_pool = None
        self._drop_client()
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()

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

    # --- database helpers -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._db_lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise

    def _rows(self, where: str, params: tuple[Any, ...] = (), limit: int | None = None) -> list[_Row]:
        sql = ("SELECT seq, capture_id, entry_id, payload, attempts, batch_id, batch_index, revision_kref, solo, "
               f"next_attempt_at FROM sync_outbox WHERE {where}")
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._db_lock:
            rows = self._conn.execute(sql, params).fetchall()
        out = []
        for r in rows:
            payload = json.loads(r[3])
            row = _Row(r[0], r[1], r[2], payload, r[4], r[5], r[6], r[7], bool(r[8]),
                       space=space_for(payload, self.config, self.device_id))
            row.not_before = float(r[9])
            out.append(row)
        return out

    def _due_params(self, now: float) -> tuple[float, float]:
        return now, now + self.config.backoff_max_s + 1.0

    def _note_error(self, conn: sqlite3.Connection, code: str, message: str) -> None:
        set_state(conn, "last_error", {"at": self._clock(), "code": code, "message": message})

    def _record_global(self, code: str, message: str, *, pause: dict[str, Any] | None = None) -> None:
        with self._tx() as conn:
            self._note_error(conn, code, message)
            if pause is not None:
                set_state(conn, "paused", pause)
            set_state(conn, "offline_until", self._offline_until)

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
            self._resolve_all(client, finishing)
            # The next batch goes out while this pass finishes the captures already answered: the
            # server creates its revisions while the finishing calls wait on the wire. The two sets of
            # rows are disjoint (a row is either still without a revision kref or already has one).
            ahead = self._ahead().submit(self._send_next, client, now) if finishing else None
            try:
                done = self._finish(client, finishing)
            finally:
                if ahead is not None:
                    sent = ahead.result() or sent  # its failure (if any) is raised here
        except _GlobalFailure as failure:
            self._handle_global(failure)
            return done
        if done or sent:
            self._backoff.reset()
            self._clear_pause()
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
        with self._db_lock:
            paused = get_state(self._conn, "paused")
        if paused:
            with self._tx() as conn:
                set_state(conn, "paused", None)
            log.info("kumiho sync: resumed (%s pause cleared)", paused.get("reason"))

    # --- step 2: project and spaces ---------------------------------------------------------------

    def _ensure_project(self, client: Any) -> None:
        if self._project_ok:
            return
        project = self.config.project
        try:
            if client.get_project(project) is None:
                client.create_project(project, "AI Cognitive Memory")
        except Exception as exc:
            if not (_is_rpc_error(exc) and _code(exc) == "ALREADY_EXISTS"):
                if type(exc).__name__ == "ProjectLimitError":
                    raise _GlobalFailure("RESOURCE_EXHAUSTED", f"project limit reached: {exc}") from None
                raise _GlobalFailure.wrap(exc, "ensuring the project") from None
        self._project_ok = True

    def _ensure_space(self, client: Any, space: str) -> str | None:
        """Create each segment of /<project>/<space>; returns a permanent-failure reason or None."""
        if space in self._spaces:
            return None
        parent = f"/{self.config.project}"
        for seg in space.split("/"):
            path = f"{parent}/{seg}"
            if path[1:] not in self._spaces:
                try:
                    client.create_space(parent, seg)
                except Exception as exc:
                    if not _is_rpc_error(exc):
                        raise
                    code = _code(exc)
                    if code != "ALREADY_EXISTS":
                        if code in PERMANENT_CODES:
                            return f"{code}: creating space {path}: {_details(exc)}"
                        raise _GlobalFailure.wrap(exc, f"creating space {path}") from None
                self._spaces.add(path[1:])
            parent = path
        self._spaces.add(space)
        return None

    def _forget_space(self, space: str) -> None:
        parts = space.split("/")
        for i in range(len(parts)):
            self._spaces.discard(f"{self.config.project}/{'/'.join(parts[: i + 1])}")
        self._spaces.discard(space)

    # --- step 3: batches --------------------------------------------------------------------------

    def _next_batch(self, client: Any, now: float) -> list[_Row]:
        """The rows to send: an unanswered batch replayed as persisted, else a new batch persisted first."""
        with self._db_lock:
            pending_batches = self._conn.execute(
                "SELECT batch_id, prefix, rows FROM sync_batches WHERE dead = 0 ORDER BY created_at").fetchall()
        for pending in pending_batches:
            rows = self._rows("batch_id = ? ORDER BY batch_index", (pending[0],))
            if len(rows) != pending[2] or [r.batch_index for r in rows] != list(range(pending[2])):
                # Cannot happen through this module (batch rows move together); refuse to guess.
                raise SyncError(f"sync batch {pending[0]} is incomplete in the outbox; run `edge-agent sync status`")
            if any(now < r.not_before <= now + self.config.backoff_max_s for r in rows):
                continue  # an answered failure scheduled its retry; other captures need not wait behind it
            self._ensure_project(client)
            for space in {r.space for r in rows}:
                reason = self._ensure_space(client, space)
                if reason:
                    # The rows are bound to this batch; they wait (attempt counted) rather than re-batch.
                    self._fail_rows(rows, "FAILED_PRECONDITION", reason, answered=True)
                    return []
            return rows
        limit = min(self.config.batch_size, MAX_BATCH)
        candidates = self._rows(
            f"batch_id IS NULL AND revision_kref IS NULL AND {_DUE} ORDER BY seq", self._due_params(now), limit)
        if not candidates:
            return []
        if candidates[0].solo:  # after a whole-batch rejection: one capture per call to isolate the bad one
            candidates = candidates[:1]
        else:
            candidates = candidates[:next((i for i, c in enumerate(candidates) if c.solo), len(candidates))]
        self._ensure_project(client)
        keep: list[_Row] = []
        dead: list[tuple[_Row, str, str]] = []
        for row in candidates:
            reason = self._ensure_space(client, row.space)
            if reason:
                dead.append((row, reason.split(":", 1)[0], reason))
            else:
                keep.append(row)
        if dead:
            self._dead_letter([(r, c, m) for r, c, m in dead], keep_batch=False)
        if not keep:
            return []
        ids = [r.capture_id for r in keep]
        if len(keep) == 1:
            prefix = f"{self.device_id}:{ids[0]}"
        else:
            prefix = f"{self.device_id}:b-{hashlib.sha256(chr(10).join(ids).encode()).hexdigest()[:32]}"
        batch_id = prefix
        with self._tx() as conn:
            # Persisted before the call: after a crash the same rows go out again, same order, same prefix.
            conn.execute("INSERT INTO sync_batches (batch_id, prefix, rows, created_at) VALUES (?, ?, ?, ?)",
                         (batch_id, prefix, len(keep), self._clock()))
            for i, row in enumerate(keep):
                conn.execute("UPDATE sync_outbox SET batch_id = ?, batch_index = ? WHERE seq = ?",
                             (batch_id, i, row.seq))
                row.batch_id, row.batch_index = batch_id, i
        return keep

    def _send_batch(self, client: Any, rows: list[_Row]) -> None:
        batch_id = rows[0].batch_id
        with self._db_lock:
            prefix = self._conn.execute("SELECT prefix FROM sync_batches WHERE batch_id = ?", (batch_id,)).fetchone()[0]
        clock = read_clock()
        specs = [
            {"item_kref": f"kref://{self.config.project}/{r.space}/cap-{r.capture_id}.{ITEM_KIND}",
             "metadata": revision_metadata(r.payload, r.space, clock)}
            for r in rows
        ]
        try:
            results, failures = client.batch_create_revisions(specs, idempotency_prefix=prefix)
        except Exception as exc:
            if not _is_rpc_error(exc):
                raise
            code = _code(exc)
            if code in PERMANENT_CODES:
                # The server rejected the whole call, so nothing committed: split it up, then dead-letter.
                if len(rows) > 1:
                    with self._tx() as conn:
                        conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (batch_id,))
                        conn.executemany(
                            "UPDATE sync_outbox SET batch_id = NULL, batch_index = NULL, solo = 1 WHERE seq = ?",
                            [(r.seq,) for r in rows])
                        self._note_error(conn, code, f"batch of {len(rows)} rejected ({_details(exc)}); "
                                         "retrying its captures one by one")
                else:
                    self._dead_letter([(rows[0], code, _details(exc))], keep_batch=False)
                return
            if code in BUSY_CODES:
                self._fail_rows(rows, code, _details(exc), answered=True)
            raise _GlobalFailure.wrap(exc, "BatchCreateRevisions") from None
        failed = dict(failures)
        dead: list[tuple[_Row, str, str]] = []
        with self._tx() as conn:
            for i, row in enumerate(rows):
                rev = results[i] if i < len(results) else None
                if i in failed or rev is None:
                    dead.append((row, "ROW_REJECTED", failed.get(i, "no result for this row")))
                    self._forget_space(row.space)  # e.g. deleted upstream since cached: re-ensure next time
                    continue
                # Read the answer now: the SDK's Revision.tags re-fetches (a blocking call) once it is 5 s old.
                row.revision_kref = str(rev.kref)
                row.revision = _RevState(row.revision_kref, bool(rev.published), frozenset(rev.tags or ()))
                conn.execute("UPDATE sync_outbox SET revision_kref = ?, batch_id = NULL, batch_index = NULL, "
                             "attempts = 0, next_attempt_at = 0, last_error = NULL WHERE seq = ?",
                             (row.revision_kref, row.seq))
            conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (batch_id,))
        if dead:
            # Rejected rows did not commit under their key: they may join a new batch after retry-dead.
            self._dead_letter(dead, keep_batch=False)
        self._batch_answers = {r.seq: r.revision for r in rows if r.revision is not None}

    # --- steps 4-6: edges, tags, retire -----------------------------------------------------------

    def _finishing_rows(self, now: float) -> list[_Row]:
        """Due rows whose revision exists upstream, with the batch answers at hand (taken, not shared)."""
        rows = self._rows(f"revision_kref IS NOT NULL AND {_DUE} ORDER BY seq", self._due_params(now),
                          max(self.config.batch_size, 1) * 2)
        answers, self._batch_answers = self._batch_answers, {}
        for r in rows:
            r.revision = answers.get(r.seq)
        return rows

    def _finish(self, client: Any, rows: list[_Row]) -> int:
        if not rows:
            return 0
        outcomes = self._run_steps(client, rows)
        done = [o for o in outcomes if o.status == "done"]
        if done:
            with self._tx() as conn:
                t = self._clock()
                for o in done:
                    conn.execute("DELETE FROM sync_outbox WHERE seq = ?", (o.row.seq,))
                    if not (o.row.entry_id and self._record_kref_in_tx(conn, o.row.entry_id, o.row.revision_kref)):
                        # No entries table here (another store): store.set_kref after the commit.
                        conn.execute("INSERT OR REPLACE INTO sync_krefs (capture_id, entry_id, revision_kref, "
                                     "synced_at) VALUES (?, ?, ?, ?)",
                                     (o.row.capture_id, o.row.entry_id, o.row.revision_kref, t))
                bump_state(conn, "synced_total", len(done))
                skipped = sum(o.skipped_edges for o in done)
                if skipped:
                    bump_state(conn, "edges_skipped", skipped)
                set_state(conn, "last_success", t)
        deferred = [o for o in outcomes if o.status == "defer"]
        if deferred:
            with self._tx() as conn:
                conn.executemany("UPDATE sync_outbox SET next_attempt_at = ? WHERE seq = ?",
                                 [(self._clock() + 0.2, o.row.seq) for o in deferred])
        dead = [(o.row, o.code, o.reason) for o in outcomes if o.status == "dead"]
        if dead:
            self._dead_letter(dead, keep_batch=False)
        retry = [o for o in outcomes if o.status == "retry"]
        for o in retry:
            self._fail_rows([o.row], o.code, o.reason, answered=True)
        for status in ("auth", "unsupported", "offline"):
            hit = next((o for o in outcomes if o.status == status), None)
            if hit is not None:
                raise _GlobalFailure(hit.code, hit.reason)
        return len(done)

    def _run_steps(self, client: Any, rows: list[_Row]) -> list[_Outcome]:
        """Finish captures concurrently: each one's calls strictly in order, many captures' calls in flight.

        Each capture is a generator (:meth:`_finish_steps`) that yields one call at a time and only sees
        the next step after that call answered, so its edges and custom tags always complete before its
        ``published`` tag is even sent. The calls go out as gRPC futures on the client's one channel, up
        to FINISH_IN_FLIGHT at a time, and their answers come back here through a queue: one thread, no
        pool, so the device pays little CPU per call. After a connection-level failure (offline, auth,
        missing RPC) no further captures are started; those not finished stay queued and resume from
        their recorded state next time (every step is safe to repeat).
        """
        stub = _finishing_stub(client)
        timeout = self.config.rpc_timeout_s
        answers: queue.SimpleQueue[tuple[_Row, _Steps, Any]] = queue.SimpleQueue()
        waiting = deque(rows)
        outcomes: list[_Outcome] = []
        in_flight = 0
        stopping = False

        def advance(row: _Row, steps: _Steps, reply: Any = None, error: BaseException | None = None) -> None:
            nonlocal in_flight, stopping
            try:
                call = steps.throw(error) if error is not None else steps.send(reply)
            except StopIteration as stop:
                outcome = stop.value
            except Exception as exc:  # noqa: BLE001 - classified; anything unexpected is re-raised there
                outcome = self._classify(row, exc)
            else:
                future = getattr(stub, call.method).future(call.request, timeout=timeout)
                in_flight += 1
                future.add_done_callback(lambda f: answers.put((row, steps, f)))
                return
            outcomes.append(outcome)
            stopping = stopping or outcome.status in ("auth", "unsupported", "offline")

        while True:
            while waiting and in_flight < FINISH_IN_FLIGHT and not stopping:
                row = waiting.popleft()
                steps = self._finish_steps(client, row)
                advance(row, steps)  # runs up to the capture's first call (or to its outcome)
            if in_flight == 0:
                return outcomes
            try:  # every call carries a deadline, so an answer (or its failure) always comes
                row, steps, future = answers.get(timeout=timeout + 10)
            except queue.Empty:
                raise _GlobalFailure("DEADLINE_EXCEEDED", "no answer from the gRPC channel") from None
            in_flight -= 1
            error = future.exception()
            if stopping:
                steps.close()  # abandoned mid-way; it resumes from the server's state next pass
            elif error is not None:
                advance(row, steps, error=error)
            else:
                advance(row, steps, future.result())

    def _classify(self, row: _Row, exc: BaseException) -> _Outcome:
        """The outcome of a capture whose steps failed with `exc`."""
        if not _is_rpc_error(exc):
            if isinstance(exc, ValueError):  # SDK-side validation of a kref or edge type
                return _Outcome(row, "dead", "INVALID_ARGUMENT", str(exc)[:300])
            raise exc
        code, details = _code(exc), _details(exc)
        if code in AUTH_CODES:
            return _Outcome(row, "auth", code, details)
        if code in UNSUPPORTED_CODES:
            return _Outcome(row, "unsupported", code, details)
        if code in OFFLINE_CODES:
            return _Outcome(row, "offline", code, details)
        if code in PERMANENT_CODES:
            return _Outcome(row, "dead", code, details)
        return _Outcome(row, "retry", code, details)

    def _finish_steps(self, client: Any, row: _Row) -> _Steps:
        """One capture's steps 4-6 as a sequence of calls; returns its outcome (RPC errors propagate)."""
        from kumiho.proto import kumiho_pb2 as pb

        rev = row.revision
        if rev is None:  # resuming: the server's state says which steps already happened
            reply = yield _Call("GetRevision", pb.KrefRequest(kref=pb.Kref(uri=row.revision_kref)))
            rev = _RevState(reply.kref.uri, reply.published, frozenset(reply.tags))
        if rev.published:
            return _Outcome(row, "done")  # published is the last step: everything before it happened
        if isinstance(row.sources, BaseException):
            raise row.sources  # resolving a source failed (e.g. offline): classified like any step
        targets, skipped, waiting = row.sources or self._resolve_sources(client, row)
        if waiting:
            return _Outcome(row, "defer")
        own = pb.Kref(uri=rev.kref)
        if targets:
            # A revision learned from a batch answer in this pass had no kref on disk before, so no
            # process can have sent an edge for it yet: GetEdges is needed only when resuming.
            existing: set[str] = set()
            if row.revision is None:
                reply = yield _Call("GetEdges", pb.GetEdgesRequest(kref=own, edge_type_filter=EDGE_TYPE,
                                                                 direction=pb.OUTGOING))
                existing = {e.target_kref.uri for e in reply.edges}
            for target in targets:
                if target in existing:
                    continue
                try:
                    yield _Call("CreateEdge", pb.CreateEdgeRequest(
                        source_revision_kref=own, target_revision_kref=pb.Kref(uri=target), edge_type=EDGE_TYPE))
                except Exception as exc:
                    if _is_rpc_error(exc) and _code(exc) == "NOT_FOUND":
                        log.warning("capture %s: source %s does not exist upstream; edge skipped",
                                    row.capture_id, target)
                        skipped += 1
                        continue
                    raise
                existing.add(target)
        for tag in dict.fromkeys(row.payload.get("tags") or ()):
            if tag not in ("latest", PUBLISHED) and tag not in rev.tags and re.fullmatch(r"[\w.:-]{1,64}", tag):
                yield _Call("TagRevision", pb.TagRevisionRequest(kref=own, tag=tag))
        yield _Call("TagRevision", pb.TagRevisionRequest(kref=own, tag=PUBLISHED))  # last: it freezes the revision
        return _Outcome(row, "done", skipped_edges=skipped)

    def _resolve_all(self, client: Any, rows: list[_Row]) -> None:
        """Resolve every row's sources before the finishing calls start.

        The lookups read the database, so doing them first keeps the loop that issues the finishing
        calls free of the database lock, which the batch thread holds across each commit (an fsync).
        """
        for row in rows:
            if not row.payload.get("source_refs"):
                row.sources = ([], 0, False)
                continue
            try:
                row.sources = self._resolve_sources(client, row)
            except Exception as exc:  # noqa: BLE001 - raised again inside that capture's steps
                row.sources = exc

    def _resolve_sources(self, client: Any, row: _Row) -> tuple[list[str], int, bool]:
        """Revision krefs to link to; (targets, skipped, waiting-for-a-queued-source)."""
        targets: list[str] = []
        skipped = 0
        for ref in row.payload.get("source_refs") or ():
            if ref.startswith("mem://"):
                kref, pending = self._kref_for_entry(ref[6:])
                if kref:
                    targets.append(kref)
                elif pending:
                    return [], 0, True
                else:
                    log.warning("capture %s: source %s was never synced; edge skipped", row.capture_id, ref)
                    skipped += 1
            elif _REVISION_KREF.match(ref):
                targets.append(ref)
            else:  # item kref, ?t=tag or ?time=: resolve to one revision first
                try:
                    targets.append(str(client.get_revision(ref).kref))
                except Exception as exc:
                    if _is_rpc_error(exc) and _code(exc) == "NOT_FOUND":
                        skipped += 1
                        continue
                    raise
        return list(dict.fromkeys(targets)), skipped, False

    def _kref_for_entry(self, entry_id: str) -> tuple[str | None, bool]:
        """(kref, still-queued) for a memory entry referenced as mem://<entry_id>."""
        with self._db_lock:
            c = self._conn
            # The source's revision exists upstream as soon as its batch was answered, finished or not.
            for sql in ("SELECT revision_kref FROM sync_krefs WHERE entry_id = ?",
                        "SELECT revision_kref FROM sync_outbox WHERE entry_id = ? AND revision_kref IS NOT NULL",
                        "SELECT revision_kref FROM sync_dead WHERE entry_id = ? AND revision_kref IS NOT NULL"):
                hit = c.execute(sql, (entry_id,)).fetchone()
                if hit:
                    return hit[0], False
            with contextlib.suppress(sqlite3.OperationalError):
                hit = c.execute("SELECT kref FROM entries WHERE id = ?", (entry_id,)).fetchone()
                if hit and hit[0]:
                    return hit[0], False
            queued = c.execute("SELECT 1 FROM sync_outbox WHERE entry_id = ? LIMIT 1", (entry_id,)).fetchone()
            return None, queued is not None

    def _record_kref_in_tx(self, conn: sqlite3.Connection, entry_id: str, kref: str | None) -> bool:
        """Write the kref onto the memory entry in the transaction that retires the outbox row.

        ``entries.kref`` is the column the memory store keeps for a synced entry's revision. Writing it
        here makes "uploaded" and "entry knows its kref" one atomic, single-fsync commit per batch,
        where a ``store.set_kref`` call per capture would be a separate commit (and fsync) each.
        """
        if self._entries_table is None:
            # With [memory] audit_enabled the store's own set_kref runs instead (after the commit, through
            # the sync_krefs ledger), so every kref change lands in the memory audit trail.
            self._entries_table = not self.settings.memory.audit_enabled and bool(conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone())
        if not self._entries_table or not kref:
            return False
        conn.execute("UPDATE entries SET kref = ? WHERE id = ?", (kref, entry_id))
        return True  # an entry deleted meanwhile simply has nothing to update

    def _apply_pending_krefs(self) -> int:
        """Write synced krefs onto their memory entries (store.set_kref), then forget them."""
        with self._db_lock:
            pending = self._conn.execute("SELECT capture_id, entry_id, revision_kref FROM sync_krefs").fetchall()
        applied = []
        for capture_id, entry_id, kref in pending:
            if entry_id:
                try:
                    self.store.set_kref(entry_id, kref)
                except Exception as exc:  # noqa: BLE001 - the entry may be gone; keep the kref for mem:// lookups
                    log.warning("recording kref for entry %s failed: %s", entry_id, exc)
                    continue
            applied.append((capture_id,))
        if applied:
            with self._tx() as conn:
                conn.executemany("DELETE FROM sync_krefs WHERE capture_id = ?", applied)
        return len(applied)

    # --- failure bookkeeping ----------------------------------------------------------------------

    def _fail_rows(self, rows: list[_Row], code: str, reason: str, *, answered: bool) -> None:
        """Count an answered failure on rows; rows at max_attempts become dead letters (whole batch together)."""
        if not rows:
            return
        now = self._clock()
        give_up = [r for r in rows if answered and r.attempts + 1 >= self.config.max_attempts]
        with self._tx() as conn:
            for r in rows:
                r.attempts += 1 if answered else 0
                delay = min(self.config.backoff_max_s, self.config.backoff_initial_s * 2 ** max(r.attempts - 1, 0))
                conn.execute("UPDATE sync_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?",
                             (r.attempts, now + delay / 2 + self._rng.uniform(0, delay / 2), f"{code}: {reason}",
                              r.seq))
            self._note_error(conn, code, reason)
        if give_up:
            self._dead_letter([(r, code, f"gave up after {r.attempts} attempts: {reason}") for r in give_up],
                              keep_batch=True)

    def _dead_letter(self, items: list[tuple[_Row, str, str]], *, keep_batch: bool) -> None:
        """Move rows to sync_dead; keep_batch retains an unanswered batch so retry replays it unchanged."""
        now = self._clock()
        with self._tx() as conn:
            seqs = {r.seq for r, _, _ in items}
            batches = {r.batch_id for r, _, _ in items if r.batch_id and keep_batch and conn.execute(
                "SELECT 1 FROM sync_batches WHERE batch_id = ?", (r.batch_id,)).fetchone()}
            for batch_id in batches:  # an unanswered batch is dead-lettered whole, never split
                siblings = conn.execute("SELECT seq, capture_id FROM sync_outbox WHERE batch_id = ?",
                                        (batch_id,)).fetchall()
                code, reason = items[0][1], items[0][2]
                for seq, _cid in siblings:
                    if seq not in seqs:
                        items.append((_Row(seq, "", None, {}, 0, batch_id, None, None), code, reason))
                        seqs.add(seq)
                conn.execute("UPDATE sync_batches SET dead = 1 WHERE batch_id = ?", (batch_id,))
            for row, code, reason in items:
                src = conn.execute(
                    "SELECT seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, attempts, batch_id, "
                    "batch_index, revision_kref FROM sync_outbox WHERE seq = ?", (row.seq,)).fetchone()
                if src is None:
                    continue
                dead_batch, dead_index = (src[8], src[9]) if keep_batch else (None, None)
                conn.execute(
                    "INSERT OR REPLACE INTO sync_dead (seq, capture_id, entry_id, importance, payload, bytes, "
                    "enqueued_at, attempts, batch_id, batch_index, revision_kref, code, reason, dead_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*src[:8], dead_batch, dead_index, src[10], code, reason[:500], now))
                conn.execute("DELETE FROM sync_outbox WHERE seq = ?", (row.seq,))
                if not keep_batch and src[8]:
                    # Known not committed under its key: release the batch, its other rows re-batch freely.
                    conn.execute("UPDATE sync_outbox SET batch_id = NULL, batch_index = NULL WHERE batch_id = ?",
                                 (src[8],))
                    conn.execute("DELETE FROM sync_batches WHERE batch_id = ?", (src[8],))
                log.warning("capture %s moved to dead letters: %s %s", src[1], code, reason[:200])
            self._note_error(conn, items[0][1], f"{len(items)} capture(s) dead-lettered: {items[0][2][:200]}")

    def retry_dead(self, capture_ids: list[str] | None = None) -> int:
        """Move dead letters (all, or these captures and their batch siblings) back into the outbox."""
        with self._tx() as conn:
            if capture_ids:
                marks = ",".join("?" * len(capture_ids))
                batches = [b for (b,) in conn.execute(
                    f"SELECT DISTINCT batch_id FROM sync_dead WHERE capture_id IN ({marks}) AND batch_id IS NOT NULL",
                    capture_ids)]
                where = f"capture_id IN ({marks})"
                params: list[Any] = list(capture_ids)
                if batches:
                    where += f" OR batch_id IN ({','.join('?' * len(batches))})"
                    params += batches
            else:
                where, params, batches = "1", [], None
            rows = conn.execute(
                "SELECT seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, batch_id, batch_index, "
                f"revision_kref FROM sync_dead WHERE {where}", params).fetchall()
            for r in rows:
                conn.execute(
                    "INSERT INTO sync_outbox (seq, capture_id, entry_id, importance, payload, bytes, enqueued_at, "
                    "batch_id, batch_index, revision_kref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tuple(r))
                conn.execute("DELETE FROM sync_dead WHERE seq = ?", (r[0],))
            revived = {r[7] for r in rows if r[7]}
            for b in revived:
                conn.execute("UPDATE sync_batches SET dead = 0 WHERE batch_id = ?", (b,))
            set_state(conn, "paused", None)
        self._offline_until = 0.0
        self._backoff.reset()
        return len(rows)

    def _handle_global(self, failure: _GlobalFailure) -> None:
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
        if code in OFFLINE_CODES:
            # A failed channel sits in gRPC's own reconnect backoff; start fresh on the next attempt.
            self._drop_client()
            self._project_ok = False
        self._record_global(code, f"{message}; next attempt in {delay:.1f}s")
        log.info("kumiho sync: %s (%s); next attempt in %.1fs", code, message, delay)

    # --- loops ------------------------------------------------------------------------------------

    def pending(self) -> int:
        """Captures in the outbox (not counting dead letters)."""
        with self._db_lock:
            return int(self._conn.execute("SELECT count(*) FROM sync_outbox").fetchone()[0])

    def _next_due(self) -> float:
        with self._db_lock:
            row = self._conn.execute("SELECT min(next_attempt_at) FROM sync_outbox").fetchone()
        due = float(row[0]) if row and row[0] is not None else self._clock() + self.config.sync_interval_s
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
        with self._db_lock:
            paused = get_state(self._conn, "paused")
        if not paused:
            return None
        if paused.get("reason") == "auth":
            try:
                token = load_token(self.config, self.settings.source.parent if self.settings.source else None)
            except ConfigError:
                return paused
            if token_fingerprint(token) != paused.get("token"):
                with self._tx() as conn:
                    set_state(conn, "paused", None)
                log.info("kumiho sync: token changed; resuming")
                return None
        return paused

    # --- status -----------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Queue sizes, last success/error, pause and screening counters (never the token)."""
        return sync_status(self._conn, self.settings, self.state_dir, device=self.device_id,
                           endpoint_override=self.endpoint_override, db_lock=self._db_lock)


class _GlobalFailure(Exception):
    """A failure of the connection or the server as a whole (not of one capture)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message

    @classmethod
    def wrap(cls, exc: BaseException, what: str) -> _GlobalFailure:
        if not _is_rpc_error(exc):
            raise exc
        return cls(_code(exc), f"{what}: {_details(exc)}")


def sync_status(conn: sqlite3.Connection, settings: Settings, state_dir: Path, *, device: str | None = None,
                endpoint_override: str | None = None, db_lock: threading.RLock | None = None) -> dict[str, Any]:
    """The status dictionary behind ``edge-agent sync status`` (reads the database only)."""
    cfg = settings.kumiho
    now = time.time()
    with db_lock or contextlib.nullcontext():
        ensure_schema(conn)
        q = conn.execute
        queued = q("SELECT count(*) FROM sync_outbox WHERE batch_id IS NULL AND revision_kref IS NULL").fetchone()[0]
        # Disjoint: a row leaves its batch when its revision kref is recorded (each count uses an index).
        in_flight = (q("SELECT count(*) FROM sync_outbox WHERE batch_id IS NOT NULL").fetchone()[0]
                     + q("SELECT count(*) FROM sync_outbox WHERE revision_kref IS NOT NULL").fetchone()[0])
        dead = q("SELECT count(*) FROM sync_dead").fetchone()[0]
        oldest = q("SELECT min(enqueued_at) FROM sync_outbox").fetchone()[0]
        usage = q("SELECT rows, bytes FROM sync_usage WHERE id = 1").fetchone() or (0, 0)
        dead_rows = q("SELECT capture_id, code, reason, dead_at, attempts FROM sync_dead ORDER BY seq LIMIT 20"
                      ).fetchall()
        counters = dict(q("SELECT key, value FROM sync_state WHERE key LIKE 'secrets_redacted%' OR key IN "
                          "('synced_total', 'edges_skipped')").fetchall())
        last_success = get_state(conn, "last_success")
        last_error = get_state(conn, "last_error")
        paused = get_state(conn, "paused")
        offline_until = get_state(conn, "offline_until", 0) or 0
    try:
        endpoint: str | None = resolve_endpoint(cfg, endpoint_override)
        endpoint_error = None
    except ConfigError as exc:
        endpoint, endpoint_error = None, str(exc)
    screening = read_screening(state_dir)
    max_bytes = int(cfg.outbox_max_mb * 2**20)
    return {
        "enabled": cfg.enabled,
        "endpoint": endpoint,
        "endpoint_error": endpoint_error,
        "device_id": device or resolve_device_id(settings, state_dir),
        "project": cfg.project,
        "queued": int(queued),
        "in_flight": int(in_flight),
        "dead_letters": int(dead),
        "synced_total": int(counters.get("synced_total", 0)),
        "edges_skipped": int(counters.get("edges_skipped", 0)),
        "oldest_unsynced_age_s": round(now - oldest, 3) if oldest else None,
        "last_success": _iso(last_success),
        "last_error": ({**last_error, "at": _iso(last_error.get("at"))} if isinstance(last_error, dict) else None),
        "paused": {k: v for k, v in paused.items() if k != "token"} if isinstance(paused, dict) else None,
        "next_attempt_in_s": round(offline_until - now, 1) if offline_until and offline_until > now else 0.0,
        "outbox": {
            "rows": int(usage[0]), "bytes": int(usage[1]), "max_rows": cfg.outbox_max_rows, "max_bytes": max_bytes,
            "full_policy": cfg.outbox_full_policy, "used_fraction": round(max(usage[0] / cfg.outbox_max_rows,
                                                                              usage[1] / max_bytes), 4),
        },
        "secrets": {
            "policy": cfg.secret_policy,
            "redacted_captures": int(counters.get("secrets_redacted_captures", 0)),
            "redacted_by_kind": {k.split(".", 1)[1]: int(v) for k, v in counters.items()
                                 if k.startswith("secrets_redacted.")},
            "rejected_captures": int(screening.get("rejected_captures", 0)),
            "rejected_by_kind": screening.get("rejected", {}),
        },
        "dead": [{"capture_id": r[0], "code": r[1], "reason": r[2], "dead_at": _iso(r[3]), "attempts": r[4]}
                 for r in dead_rows],
    }


def _iso(ts: Any) -> str | None:
    if not isinstance(ts, int | float) or not ts:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
