"""A Kumiho test server: the RPC subset edge_agent's sync uses, on the SDK's own generated servicer.

It runs the real gRPC stack on loopback so the real ``kumiho`` client talks to it unchanged. The
semantics are those the comments in Kumiho's service proto give each RPC:

* projects and spaces are unique by name/path; creating one that exists answers ``ALREADY_EXISTS``;
* ``BatchCreateRevisions`` commits all valid rows atomically, auto-creates missing items, fails a row
  whose space does not exist, caps a call at 200 rows, and with ``idempotency_prefix`` records row *i*
  under ``"{prefix}:{i}"`` so a re-submit returns the revisions it already created;
* ``CreateRevision`` always appends; ``CreateEdge`` has no uniqueness (two calls make two edges),
  which is exactly why the client must ``GetEdges`` first;
* a tag names one revision per item; ``published`` freezes a revision, after which tagging it is
  refused with ``PERMISSION_DENIED``;
* ``GetItem`` joins ``parent_path + "/" + item_name`` (the SDK's ``get_item_by_kref`` split).

Fault injection (thread-safe, changeable while serving): go offline (the port refuses connections),
``UNAVAILABLE`` bursts, "reply lost after commit" (the effect is applied, the client sees
``UNAVAILABLE``), slow replies, a required bearer token (``UNAUTHENTICATED`` otherwise), forced
status codes for chosen methods, and random pre-/post-commit failure rates for soak tests.

Calls are served concurrently (a small handler pool; a large one while replies are slowed down) and
applied one at a time under one lock; ``calls`` records them in the order their effects were applied,
so tests can check the order of writes on each revision (:meth:`KumihoTestServicer.writes_to`).

Only ``grpc`` and the SDK's generated modules are imported, so this needs the ``kumiho`` extra.
"""

from __future__ import annotations

import itertools
import random
import re
import threading
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from kumiho.proto import kumiho_pb2 as pb
from kumiho.proto import kumiho_pb2_grpc as pb_grpc

Req = TypeVar("Req")
Resp = TypeVar("Resp")

MAX_BATCH_ROWS = 200
MAX_CALL_RECORDS = 200_000
DEFAULT_WORKERS = 4  # handler threads (see KumihoTestServer._pool_size)
SLOW_REPLY_WORKERS = 64
# Revision metadata keys the server owns: Kumiho reserves `type` for itself and strips it from client metadata.
RESERVED_METADATA = frozenset({"type"})
_SEGMENT = re.compile(r"^\w[\w-]*$", re.UNICODE)
_ITEM_KREF = re.compile(r"^kref://(?P<path>[^?]+?)/(?P<name>[^/?.]+)\.(?P<kind>[^/?.]+)(?:\?r=(?P<r>\d+))?$")
_MUTATING = frozenset({
    "CreateProject", "CreateSpace", "CreateItem", "CreateRevision", "BatchCreateRevisions",
    "TagRevision", "CreateEdge",
})


@dataclass
class ForcedStatus:
    """A status code a method answers instead of working, for ``remaining`` more calls (-1: until cleared)."""

    code: grpc.StatusCode
    remaining: int


@dataclass
class Faults:
    """What the server does wrong next; every field may be changed while it serves."""

    unavailable_next: int = 0  # the next N calls fail with UNAVAILABLE before doing anything
    lose_reply_next: int = 0  # the next N mutating calls commit, then answer UNAVAILABLE
    lose_reply_methods: frozenset[str] = frozenset()  # restrict lose_reply_next to these (empty: all mutating)
    delay_s: float = 0.0  # every call sleeps this long before answering
    required_token: str | None = None  # calls without `authorization: Bearer <token>` get UNAUTHENTICATED
    # method -> [status code, remaining count (-1 = forever)]: answer that code instead of working
    forced: dict[str, ForcedStatus] = field(default_factory=dict)
    pre_commit_failure_rate: float = 0.0  # random UNAVAILABLE before a mutating call does anything
    post_commit_failure_rate: float = 0.0  # random "reply lost" after a mutating call committed
    refuse_titles: frozenset[str] = frozenset()  # batch rows with one of these titles fail (a row-level refusal)
    rng: random.Random = field(default_factory=random.Random)


@dataclass
class _Revision:
    kref: str
    item_kref: str
    number: int
    metadata: dict[str, str]
    tags: set[str] = field(default_factory=set)
    published: bool = False


@dataclass
class CallRecord:
    """One request as the server saw it (for assertions)."""

    method: str
    request: object  # the gRPC request message, as the servicer received it
    metadata: dict[str, str]
    outcome: str  # "ok", "lost" (committed, reply dropped) or a status code name

    def target(self) -> str | None:
        """The revision kref a per-revision write (TagRevision, CreateEdge, GetEdges) is about."""
        kref = getattr(self.request, "source_revision_kref", None) or getattr(self.request, "kref", None)
        return getattr(kref, "uri", None) if kref is not None else None


class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, details: str, *, lost: bool = False) -> None:
        super().__init__(details)
        self.code, self.details, self.lost = code, details, lost


class KumihoTestServicer(pb_grpc.KumihoServiceServicer):
    """In-memory Kumiho graph with the server-side semantics the sync depends on."""

    def __init__(self, faults: Faults | None = None) -> None:
        self.faults = faults or Faults()
        self._lock = threading.RLock()
        self._gauge = threading.Lock()  # guards the two counters below only
        self.in_flight = 0  # calls inside a handler right now (sleeping a delay or applying)
        self.max_in_flight = 0  # the most there ever were at once
        self.projects: dict[str, pb.ProjectResponse] = {}
        self.spaces: set[str] = set()  # "/Proj/a/b"
        self.items: dict[str, pb.ItemResponse] = {}  # item kref -> item
        self.revisions: dict[str, _Revision] = {}  # revision kref -> revision
        self.item_revisions: dict[str, list[str]] = defaultdict(list)  # item kref -> revision krefs in order
        self.idempotency: dict[str, str] = {}  # "{prefix}:{i}" -> revision kref
        self.edges: list[tuple[str, str, str, dict[str, str]]] = []  # (source, target, type, metadata)
        # Every request as seen (bounded: `edge-agent kumiho-test-server` may run for days).
        self.calls: deque[CallRecord] = deque(maxlen=MAX_CALL_RECORDS)
        self._ids = itertools.count(1)

    # --- plumbing ---------------------------------------------------------------------------------

    def _serve(self, method: str, request: Req, context: grpc.ServicerContext,
               fn: Callable[[Req, dict[str, str]], Resp]) -> Resp:
        md = {k: v for k, v in context.invocation_metadata()}
        f = self.faults
        with self._gauge:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if f.delay_s > 0:  # outside the lock: slow calls overlap (up to the pool size)
                time.sleep(f.delay_s)
            with self._lock:
                # Recorded under the lock that applies the effect, so `calls` is in commit order.
                try:
                    reply = self._apply(method, request, md, fn)
                except _Abort as exc:
                    self.calls.append(CallRecord(method, request, md, "lost" if exc.lost else exc.code.name))
                    raise
                self.calls.append(CallRecord(method, request, md, "ok"))
                return reply
        except _Abort as exc:
            context.abort(exc.code, exc.details)
            raise  # abort() raises the RPC error; this line is never reached
        finally:
            with self._gauge:
                self.in_flight -= 1

    def _apply(self, method: str, request: Req, md: dict[str, str], fn: Callable[[Req, dict[str, str]], Resp]) -> Resp:
        f = self.faults
        if f.unavailable_next > 0:
            f.unavailable_next -= 1
            raise _Abort(grpc.StatusCode.UNAVAILABLE, "test server: injected UNAVAILABLE")
        if f.required_token is not None and md.get("authorization") != f"Bearer {f.required_token}":
            raise _Abort(grpc.StatusCode.UNAUTHENTICATED, "test server: missing or invalid bearer token")
        forced = f.forced.get(method)
        if forced and forced.remaining != 0:
            forced.remaining -= 1
            raise _Abort(forced.code, f"test server: injected {forced.code.name} for {method}")
        mutating = method in _MUTATING
        if mutating and f.pre_commit_failure_rate and f.rng.random() < f.pre_commit_failure_rate:
            raise _Abort(grpc.StatusCode.UNAVAILABLE, "test server: random pre-commit UNAVAILABLE")
        reply = fn(request, md)
        lose = False
        if mutating and f.lose_reply_next > 0 and (not f.lose_reply_methods or method in f.lose_reply_methods):
            f.lose_reply_next -= 1
            lose = True
        elif mutating and f.post_commit_failure_rate and f.rng.random() < f.post_commit_failure_rate:
            lose = True
        if lose:
            raise _Abort(grpc.StatusCode.UNAVAILABLE, "test server: committed, reply lost", lost=True)
        return reply

    def _next_id(self) -> str:
        return f"id-{next(self._ids)}"

    @staticmethod
    def _norm_path(path: str) -> str:
        return "/" + path.strip("/")

    def _revision_pb(self, rev: _Revision) -> pb.RevisionResponse:
        return self._fill_revision_pb(pb.RevisionResponse(), rev)

    def _fill_revision_pb(self, out: pb.RevisionResponse, rev: _Revision) -> pb.RevisionResponse:
        latest = self.item_revisions[rev.item_kref][-1] == rev.kref
        out.kref.uri = rev.kref
        out.item_kref.uri = rev.item_kref
        out.number = rev.number
        out.tags.extend(sorted(rev.tags | {"latest"} if latest else rev.tags))
        out.metadata.update(rev.metadata)
        out.published, out.latest = rev.published, latest
        out.name = rev.item_kref.rsplit("/", 1)[-1]
        return out

    def _parse_item_kref(self, uri: str) -> tuple[str, str, str, int | None]:
        m = _ITEM_KREF.match(uri)
        if not m:
            raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid kref {uri!r}")
        space = "/" + m["path"]
        for seg in m["path"].split("/"):
            if not _SEGMENT.match(seg):
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid path segment {seg!r} in {uri!r}")
        return space, m["name"], m["kind"], int(m["r"]) if m["r"] else None

    def _find_revision(self, uri: str) -> _Revision:
        space, name, kind, number = self._parse_item_kref(uri)
        item_kref = f"kref://{space.lstrip('/')}/{name}.{kind}"
        revs = self.item_revisions.get(item_kref)
        if not revs:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"revision {uri} not found")
        if number is None:
            return self.revisions[revs[-1]]
        rev = self.revisions.get(f"{item_kref}?r={number}")
        if rev is None:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"revision {uri} not found")
        return rev

    def _create_item(self, space: str, name: str, kind: str) -> pb.ItemResponse:
        kref = f"kref://{space.lstrip('/')}/{name}.{kind}"
        item = pb.ItemResponse(kref=pb.Kref(uri=kref), name=f"{name}.{kind}", item_name=name, kind=kind)
        self.items[kref] = item
        return item

    def _append_revision(self, item_kref: str, metadata: Any) -> _Revision:
        previous = self.item_revisions[item_kref]
        number = len(previous) + 1
        rev = _Revision(
            kref=f"{item_kref}?r={number}", item_kref=item_kref, number=number,
            metadata={k: v for k, v in metadata.items() if k not in RESERVED_METADATA},
        )
        if previous:  # consecutive revisions of one item are chained newest -> previous
            self.edges.append((rev.kref, previous[-1], "SUPERSEDES", {}))
        previous.append(rev.kref)
        self.revisions[rev.kref] = rev
        return rev

    # --- projects and spaces ----------------------------------------------------------------------

    def CreateProject(self, request: pb.CreateProjectRequest, context: grpc.ServicerContext) -> pb.ProjectResponse:  # noqa: N802
        """Create a project; ALREADY_EXISTS if the name is taken."""

        def op(req: pb.CreateProjectRequest, md: dict[str, str]) -> pb.ProjectResponse:
            if not _SEGMENT.match(req.name or ""):
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid project name {req.name!r}")
            if req.name in self.projects:
                raise _Abort(grpc.StatusCode.ALREADY_EXISTS, f"project {req.name} already exists")
            proj = pb.ProjectResponse(project_id=str(uuid.uuid4()), name=req.name, description=req.description)
            self.projects[req.name] = proj
            return proj

        return self._serve("CreateProject", request, context, op)

    def GetProjects(self, request: pb.GetProjectsRequest, context: grpc.ServicerContext) -> pb.GetProjectsResponse:  # noqa: N802
        """List the projects."""

        return self._serve(
            "GetProjects", request, context,
            lambda req, md: pb.GetProjectsResponse(projects=list(self.projects.values())),
        )

    def CreateSpace(self, request: pb.CreateSpaceRequest, context: grpc.ServicerContext) -> pb.SpaceResponse:  # noqa: N802
        """Create a space under an existing project or space; ALREADY_EXISTS if present."""

        def op(req: pb.CreateSpaceRequest, md: dict[str, str]) -> pb.SpaceResponse:
            parent = self._norm_path(req.parent_path)
            if not _SEGMENT.match(req.space_name or ""):
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid space name {req.space_name!r}")
            is_project = parent.count("/") == 1 and parent[1:] in self.projects
            if not is_project and parent not in self.spaces:
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"parent {parent} does not exist")
            path = f"{parent}/{req.space_name}"
            if path in self.spaces:
                raise _Abort(grpc.StatusCode.ALREADY_EXISTS, f"space {path} already exists")
            self.spaces.add(path)
            return pb.SpaceResponse(path=path, name=req.space_name, type="root" if is_project else "sub")

        return self._serve("CreateSpace", request, context, op)

    def GetSpace(self, request: pb.GetSpaceRequest, context: grpc.ServicerContext) -> pb.SpaceResponse:  # noqa: N802
        """Look a space up by path."""

        def op(req: pb.GetSpaceRequest, md: dict[str, str]) -> pb.SpaceResponse:
            path = self._norm_path(req.path_or_kref.removeprefix("kref://"))
            if path not in self.spaces:
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"space {path} not found")
            return pb.SpaceResponse(path=path, name=path.rsplit("/", 1)[-1], type="sub")

        return self._serve("GetSpace", request, context, op)

    # --- items ------------------------------------------------------------------------------------

    def CreateItem(self, request: pb.CreateItemRequest, context: grpc.ServicerContext) -> pb.ItemResponse:  # noqa: N802
        """Create an item in an existing space; ALREADY_EXISTS if present."""

        def op(req: pb.CreateItemRequest, md: dict[str, str]) -> pb.ItemResponse:
            space = self._norm_path(req.parent_path)
            if space not in self.spaces:
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"space {space} does not exist")
            if req.kind == "bundle":
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, "kind 'bundle' is reserved")
            for seg in (req.item_name, req.kind):
                if not _SEGMENT.match(seg or ""):
                    raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid name {seg!r}")
            kref = f"kref://{space.lstrip('/')}/{req.item_name}.{req.kind}"
            if kref in self.items:
                raise _Abort(grpc.StatusCode.ALREADY_EXISTS, f"item {kref} already exists")
            return self._create_item(space, req.item_name, req.kind)

        return self._serve("CreateItem", request, context, op)

    def GetItem(self, request: pb.GetItemRequest, context: grpc.ServicerContext) -> pb.ItemResponse:  # noqa: N802
        """Look an item up (parent_path and item_name joined, as the SDK splits them)."""

        def op(req: pb.GetItemRequest, md: dict[str, str]) -> pb.ItemResponse:
            # The SDK's get_item_by_kref sends parent "/Proj", name "space/item": join before lookup.
            full = f"{self._norm_path(req.parent_path)}/{req.item_name}".lstrip("/")
            item = self.items.get(f"kref://{full}.{req.kind}")
            if item is None:
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"item {full}.{req.kind} not found")
            return item

        return self._serve("GetItem", request, context, op)

    # --- revisions --------------------------------------------------------------------------------

    def CreateRevision(self, request: pb.CreateRevisionRequest, context: grpc.ServicerContext) -> pb.RevisionResponse:  # noqa: N802
        """Append a revision (number ignored); x-idempotency-key replays the first one."""

        def op(req: pb.CreateRevisionRequest, md: dict[str, str]) -> pb.RevisionResponse:
            space, name, kind, _ = self._parse_item_kref(req.item_kref.uri)
            item_kref = f"kref://{space.lstrip('/')}/{name}.{kind}"
            if item_kref not in self.items:
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"item {item_kref} not found")
            key = md.get("x-idempotency-key")
            if key and key in self.idempotency:  # a replayed key returns the revision it made, as a batch prefix does
                return self._revision_pb(self.revisions[self.idempotency[key]])
            rev = self._append_revision(item_kref, dict(req.metadata))  # number/exists_error ignored
            if key:
                self.idempotency[key] = rev.kref
            return self._revision_pb(rev)

        return self._serve("CreateRevision", request, context, op)

    def GetRevision(self, request: pb.KrefRequest, context: grpc.ServicerContext) -> pb.RevisionResponse:  # noqa: N802
        """Look a revision up by kref (no ?r= means the latest)."""

        return self._serve(
            "GetRevision", request, context, lambda req, md: self._revision_pb(self._find_revision(req.kref.uri))
        )

    def ResolveKref(self, request: pb.ResolveKrefRequest, context: grpc.ServicerContext) -> pb.RevisionResponse:  # noqa: N802
        """Resolve an item kref plus tag to a revision."""

        def op(req: pb.ResolveKrefRequest, md: dict[str, str]) -> pb.RevisionResponse:
            latest = self._find_revision(req.kref.split("?", 1)[0])
            if req.HasField("tag") and req.tag != "latest":
                for kref in reversed(self.item_revisions[latest.item_kref]):
                    if req.tag in self.revisions[kref].tags:
                        return self._revision_pb(self.revisions[kref])
                raise _Abort(grpc.StatusCode.NOT_FOUND, f"no revision of {req.kref} is tagged {req.tag!r}")
            return self._revision_pb(latest)  # `time` is not modelled: revisions carry no timestamps here

        return self._serve("ResolveKref", request, context, op)

    def BatchCreateRevisions(  # noqa: N802
        self, request: pb.BatchCreateRevisionsRequest, context: grpc.ServicerContext
    ) -> pb.BatchCreateRevisionsResponse:
        """Create up to 200 revisions atomically, replaying rows recorded under the prefix."""

        def op(req: pb.BatchCreateRevisionsRequest, md: dict[str, str]) -> pb.BatchCreateRevisionsResponse:
            rows = req.revisions
            if len(rows) > MAX_BATCH_ROWS:
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"at most {MAX_BATCH_ROWS} rows per batch")
            prefix = req.idempotency_prefix
            # Validate every row first, then apply: all valid rows commit together or not at all.
            plan: list[tuple[str | None, str, str, str]] = []  # (key, action, space or reason, name.kind)
            for i, row in enumerate(rows):
                key = f"{prefix}:{i}" if prefix else None
                if key and key in self.idempotency:
                    plan.append((key, "replay", "", ""))
                    continue
                try:
                    space, name, kind, _ = self._parse_item_kref(row.revision.item_kref.uri)
                    if space not in self.spaces:
                        raise _Abort(grpc.StatusCode.FAILED_PRECONDITION, f"space {space} does not exist")
                    if row.revision.metadata.get("title") in self.faults.refuse_titles:
                        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, "row refused by the server's content policy")
                    if kind == "bundle":
                        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, "kind 'bundle' is reserved")
                except _Abort as exc:
                    plan.append((key, "fail", exc.details, ""))
                    continue
                plan.append((key, "create", space, f"{name}.{kind}"))
            out = pb.BatchCreateRevisionsResponse(requested_count=len(rows))
            for i, (key, action, a, b) in enumerate(plan):
                if action == "replay":
                    rev = self.revisions[self.idempotency[key or ""]]
                elif action == "fail":
                    out.results.add()  # positional: a failed row is an empty stub
                    out.failures.add(index=i, reason=a)
                    continue
                else:
                    item_kref = f"kref://{a.lstrip('/')}/{b}"
                    if item_kref not in self.items:
                        name, kind = b.split(".", 1)
                        self._create_item(a, name, kind)
                    rev = self._append_revision(item_kref, rows[i].revision.metadata)
                    if key:
                        self.idempotency[key] = rev.kref
                self._fill_revision_pb(out.results.add(), rev)
            out.succeeded_count = len(rows) - len(out.failures)
            return out

        return self._serve("BatchCreateRevisions", request, context, op)

    def TagRevision(self, request: pb.TagRevisionRequest, context: grpc.ServicerContext) -> pb.StatusResponse:  # noqa: N802
        """Tag a revision (one per tag per item); published revisions refuse tags."""

        def op(req: pb.TagRevisionRequest, md: dict[str, str]) -> pb.StatusResponse:
            rev = self._find_revision(req.kref.uri)
            if rev.published:
                raise _Abort(grpc.StatusCode.PERMISSION_DENIED, f"revision {rev.kref} is published and frozen")
            if req.tag == "latest":
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, "'latest' is managed by the server")
            for other in self.item_revisions[rev.item_kref]:  # a tag names one revision per item
                self.revisions[other].tags.discard(req.tag)
            rev.tags.add(req.tag)
            if req.tag == "published":
                rev.published = True
            return pb.StatusResponse(success=True, message="tagged")

        return self._serve("TagRevision", request, context, op)

    # --- edges ------------------------------------------------------------------------------------

    def CreateEdge(self, request: pb.CreateEdgeRequest, context: grpc.ServicerContext) -> pb.StatusResponse:  # noqa: N802
        """Append an edge between two existing revisions (no uniqueness check)."""

        def op(req: pb.CreateEdgeRequest, md: dict[str, str]) -> pb.StatusResponse:
            if not re.match(r"^[A-Z][A-Z0-9_]{0,49}$", req.edge_type):
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid edge type {req.edge_type!r}")
            src = self._find_revision(req.source_revision_kref.uri)
            dst = self._find_revision(req.target_revision_kref.uri)
            # No uniqueness check, like the real server: a second call makes a second edge.
            self.edges.append((src.kref, dst.kref, req.edge_type, dict(req.metadata)))
            return pb.StatusResponse(success=True, message="edge created")

        return self._serve("CreateEdge", request, context, op)

    def GetEdges(self, request: pb.GetEdgesRequest, context: grpc.ServicerContext) -> pb.GetEdgesResponse:  # noqa: N802
        """Edges of a revision, filtered by type and direction."""

        def op(req: pb.GetEdgesRequest, md: dict[str, str]) -> pb.GetEdgesResponse:
            rev = self._find_revision(req.kref.uri)
            out = []
            for s, t, kind, meta in self.edges:
                if req.edge_type_filter and kind != req.edge_type_filter:
                    continue
                outgoing, incoming = s == rev.kref, t == rev.kref
                if (req.direction == 0 and outgoing) or (req.direction == 1 and incoming) or (
                    req.direction == 2 and (outgoing or incoming)
                ):
                    out.append(pb.Edge(source_kref=pb.Kref(uri=s), target_kref=pb.Kref(uri=t),
                                       edge_type=kind, metadata=meta))
            return pb.GetEdgesResponse(edges=out)

        return self._serve("GetEdges", request, context, op)

    # --- inspection helpers for tests -------------------------------------------------------------

    def revisions_by_capture(self) -> dict[str, list[str]]:
        """capture_id metadata -> revision krefs carrying it (more than one means a duplicate)."""
        with self._lock:
            out: dict[str, list[str]] = defaultdict(list)
            for rev in self.revisions.values():
                cid = rev.metadata.get("capture_id")
                if cid:
                    out[cid].append(rev.kref)
            return dict(out)

    def revision(self, kref: str) -> _Revision:
        """The stored revision for a kref (KeyError if absent)."""
        with self._lock:
            return self.revisions[kref]

    def edges_from(self, kref: str, edge_type: str = "DERIVED_FROM") -> list[str]:
        """Targets of `edge_type` edges leaving `kref`, duplicates included."""
        with self._lock:
            return [t for s, t, kind, _ in self.edges if s == kref and kind == edge_type]

    def writes_to(self, kref: str) -> list[str]:
        """Committed tag and edge writes on one revision, in commit order: ``tag:<name>`` / ``edge:<target>``."""
        with self._lock:
            out = []
            for c in self.calls:
                if c.outcome not in ("ok", "lost") or c.target() != kref:
                    continue
                if c.method == "TagRevision":
                    out.append(f"tag:{getattr(c.request, 'tag', '')}")
                elif c.method == "CreateEdge":
                    target = getattr(c.request, "target_revision_kref", None)
                    out.append(f"edge:{getattr(target, 'uri', '')}")
            return out

    def call_count(self, method: str | None = None) -> int:
        """How many calls (of one method) the server received."""
        with self._lock:
            return sum(1 for c in self.calls if method is None or c.method == method)

    def force(self, method: str, code: grpc.StatusCode, count: int = -1) -> None:
        """Answer `code` to the next `count` calls of `method` (-1: until cleared)."""
        with self._lock:
            self.faults.forced[method] = ForcedStatus(code, count)

    def clear_forced(self) -> None:
        """Stop forcing status codes."""
        with self._lock:
            self.faults.forced.clear()


class KumihoTestServer:
    """Serve a :class:`KumihoTestServicer` on 127.0.0.1; can go offline and come back on the same port."""

    def __init__(self, port: int = 0, *, servicer: KumihoTestServicer | None = None,
                 max_workers: int | None = None) -> None:
        self.servicer = servicer or KumihoTestServicer()
        self._max_workers = max_workers
        self._server: grpc.Server | None = None
        self.port = port
        self._lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        """``127.0.0.1:<port>`` for ``[kumiho] endpoint`` or ``--kumiho-endpoint``."""
        return f"127.0.0.1:{self.port}"

    @property
    def faults(self) -> Faults:
        """The servicer's fault switches."""
        return self.servicer.faults

    def start(self) -> KumihoTestServer:
        """Bind loopback and serve; keeps the port across offline/online cycles."""
        with self._lock:
            if self._server is not None:
                return self
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=self._pool_size()))
            pb_grpc.add_KumihoServiceServicer_to_server(self.servicer, server)  # type: ignore[no-untyped-call]
            bound = server.add_insecure_port(f"127.0.0.1:{self.port}")
            if bound == 0:
                raise OSError(f"test server could not bind 127.0.0.1:{self.port}")
            self.port = bound
            server.start()
            self._server = server
            return self

    def _pool_size(self) -> int:
        """Handler threads: few by default, many when replies are slowed down.

        The servicer applies each call under one lock (its graph is one consistent state) and Python
        runs one thread at a time, so beyond a few threads a bigger pool adds no parallel work, only
        thread hand-offs: measured on 2 cores, 16 threads cost ~20% more CPU per call than 2-4 under a
        client keeping 32 calls in flight. Calls beyond the pool wait in gRPC's queue, not refused.
        A slow-reply fault sleeps in its handler thread outside the lock, so it gets a large pool and
        slow calls overlap (a delay set only after start overlaps up to DEFAULT_WORKERS calls).
        """
        if self._max_workers:
            return self._max_workers
        return SLOW_REPLY_WORKERS if self.faults.delay_s > 0 else DEFAULT_WORKERS

    def stop(self, grace: float | None = None) -> None:
        """Stop serving: new connections are refused until :meth:`start` (state is kept)."""
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop(grace).wait()

    go_offline = stop

    def go_online(self) -> None:
        """Serve again on the same port."""
        self.start()

    def wait(self) -> None:
        """Block until the server stops."""
        server = self._server
        if server is not None:
            server.wait_for_termination()

    def __enter__(self) -> KumihoTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(port: int, *, token: str | None = None) -> KumihoTestServer:
    """Start a test server on 127.0.0.1:`port` (0 picks a free port); `token` makes auth required."""
    server = KumihoTestServer(port)
    server.faults.required_token = token
    server.start()
    return server
