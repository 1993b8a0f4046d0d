"""Finishing uploaded captures: edges to their sources, custom tags, then ``published``.

Each capture's steps are a generator (:meth:`Finisher.steps`) that yields one call at a time and only
sees the next step after that call answered, so its edges and custom tags always complete before its
``published`` tag (which freezes the revision) is even sent. :meth:`Finisher.run` drives many captures'
steps side by side as gRPC futures on the client's one channel; every step is safe to repeat, so a
capture interrupted mid-way resumes from the server's state.
"""

from __future__ import annotations

import logging
import queue
import re
from collections import deque
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol

from edge_agent.config import KumihoConfig
from edge_agent.sync.client import (
    AUTH_CODES,
    OFFLINE_CODES,
    PERMANENT_CODES,
    UNSUPPORTED_CODES,
    finishing_stub,
    is_rpc_error,
    rpc_code,
    rpc_details,
)
from edge_agent.sync.repository import OutboxRepository, OutboxRow, RevisionState
from edge_agent.sync.revisions import EDGE_TYPE, PUBLISHED, REVISION_KREF

log = logging.getLogger(__name__)

# Captures finished concurrently after a batch: each runs its own steps strictly in order (edges and
# custom tags, then `published`), while up to this many captures each have one call in flight.
FINISH_IN_FLIGHT = 32


class KrefLookup(Protocol):
    def kref_of(self, entry_id: str) -> str | None: ...


class ChannelSilent(Exception):
    """No answer came back from the channel within every call's deadline."""


@dataclass(frozen=True)
class _Call:
    """One unary RPC a capture's finishing steps want made next: stub method name and request."""

    method: str
    request: Any


_Steps = Generator[_Call, Any, "Outcome"]


@dataclass
class Outcome:
    row: OutboxRow
    status: str  # "done", "retry", "defer", "dead", "gone", "auth", "offline", "unsupported"
    code: str = ""
    reason: str = ""
    skipped_edges: int = 0


class Finisher:
    """Runs the finishing steps of uploaded captures."""

    def __init__(self, config: KumihoConfig, outbox: OutboxRepository, memory: KrefLookup) -> None:
        self.config = config
        self.outbox = outbox
        self.memory = memory

    def run(self, client: Any, rows: list[OutboxRow]) -> list[Outcome]:
        """Finish captures concurrently: each one's calls strictly in order, many captures' calls in flight.

        Each capture is a generator (:meth:`_finish_steps`) that yields one call at a time and only sees
        the next step after that call answered, so its edges and custom tags always complete before its
        ``published`` tag is even sent. The calls go out as gRPC futures on the client's one channel, up
        to FINISH_IN_FLIGHT at a time, and their answers come back here through a queue: one thread, no
        pool, so the device pays little CPU per call. After a connection-level failure (offline, auth,
        missing RPC) no further captures are started; those not finished stay queued and resume from
        their recorded state next time (every step is safe to repeat).
        """
        stub = finishing_stub(client)
        timeout = self.config.rpc_timeout_s
        answers: queue.SimpleQueue[tuple[OutboxRow, _Steps, Any]] = queue.SimpleQueue()
        waiting = deque(rows)
        outcomes: list[Outcome] = []
        in_flight = 0
        stopping = False

        def advance(row: OutboxRow, steps: _Steps, reply: Any = None, error: BaseException | None = None) -> None:
            nonlocal in_flight, stopping
            try:
                call = steps.throw(error) if error is not None else steps.send(reply)
            except StopIteration as stop:
                outcome = stop.value
            except Exception as exc:  # noqa: BLE001 - classified; anything unexpected is re-raised there
                outcome = self.classify(row, exc)
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
                steps = self.steps(client, row)
                advance(row, steps)  # runs up to the capture's first call (or to its outcome)
            if in_flight == 0:
                return outcomes
            try:  # every call carries a deadline, so an answer (or its failure) always comes
                row, steps, future = answers.get(timeout=timeout + 10)
            except queue.Empty:
                raise ChannelSilent("no answer from the gRPC channel") from None
            in_flight -= 1
            error = future.exception()
            if stopping:
                steps.close()  # abandoned mid-way; it resumes from the server's state next pass
            elif error is not None:
                advance(row, steps, error=error)
            else:
                advance(row, steps, future.result())

    def classify(self, row: OutboxRow, exc: BaseException) -> Outcome:
        """The outcome of a capture whose steps failed with `exc`."""
        if not is_rpc_error(exc):
            if isinstance(exc, ValueError):  # SDK-side validation of a kref or edge type
                return Outcome(row, "dead", "INVALID_ARGUMENT", str(exc)[:300])
            raise exc
        code, details = rpc_code(exc), rpc_details(exc)
        if code in AUTH_CODES:
            return Outcome(row, "auth", code, details)
        if code in UNSUPPORTED_CODES:
            return Outcome(row, "unsupported", code, details)
        if code in OFFLINE_CODES:
            return Outcome(row, "offline", code, details)
        if code == "NOT_FOUND":
            # Missing edge targets are skipped inside the steps, so this is the capture's own revision:
            # the server lost it (restarted empty).
            return Outcome(row, "gone", code, details)
        if code in PERMANENT_CODES:
            return Outcome(row, "dead", code, details)
        return Outcome(row, "retry", code, details)

    def steps(self, client: Any, row: OutboxRow) -> _Steps:
        """One capture's steps 4-6 as a sequence of calls; returns its outcome (RPC errors propagate)."""
        from kumiho.proto import kumiho_pb2 as pb

        rev = row.revision
        if rev is None:  # resuming: the server's state says which steps already happened
            reply = yield _Call("GetRevision", pb.KrefRequest(kref=pb.Kref(uri=row.revision_kref)))
            rev = RevisionState(reply.kref.uri, reply.published, frozenset(reply.tags))
        if rev.published:
            return Outcome(row, "done")  # published is the last step: everything before it happened
        if isinstance(row.sources, BaseException):
            raise row.sources  # resolving a source failed (e.g. offline): classified like any step
        targets, skipped, waiting = row.sources or self.resolve_sources(client, row)
        if waiting:
            return Outcome(row, "defer")
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
                    if is_rpc_error(exc) and rpc_code(exc) == "NOT_FOUND":
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
        return Outcome(row, "done", skipped_edges=skipped)

    def resolve_all(self, client: Any, rows: list[OutboxRow]) -> None:
        """Resolve every row's sources before the finishing calls start.

        The lookups read the database, so doing them first keeps the loop that issues the finishing
        calls free of the database lock, which the batch thread holds across each commit (an fsync).
        """
        for row in rows:
            if not row.payload.get("source_refs"):
                row.sources = ([], 0, False)
                continue
            try:
                row.sources = self.resolve_sources(client, row)
            except Exception as exc:  # noqa: BLE001 - raised again inside that capture's steps
                row.sources = exc

    def resolve_sources(self, client: Any, row: OutboxRow) -> tuple[list[str], int, bool]:
        """Revision krefs to link to; (targets, skipped, waiting-for-a-queued-source)."""
        targets: list[str] = []
        skipped = 0
        for ref in row.payload.get("source_refs") or ():
            if ref.startswith("mem://"):
                kref, pending = self.kref_for_entry(ref[6:])
                if kref:
                    targets.append(kref)
                elif pending:
                    return [], 0, True
                else:
                    log.warning("capture %s: source %s was never synced; edge skipped", row.capture_id, ref)
                    skipped += 1
            elif REVISION_KREF.match(ref):
                targets.append(ref)
            else:  # item kref, ?t=tag or ?time=: resolve to one revision first
                try:
                    targets.append(str(client.get_revision(ref).kref))
                except Exception as exc:
                    if is_rpc_error(exc) and rpc_code(exc) == "NOT_FOUND":
                        skipped += 1
                        continue
                    raise
        return list(dict.fromkeys(targets)), skipped, False

    def kref_for_entry(self, entry_id: str) -> tuple[str | None, bool]:
        """(kref, still-queued) for a memory entry referenced as mem://<entry_id>."""
        kref, queued = self.outbox.kref_for_entry(entry_id)
        if kref:
            return kref, False
        kref = self.memory.kref_of(entry_id)
        if kref:
            return kref, False
        return None, queued
