"""Entry record, input validation, time parsing, decay and the recall query language."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from edge_agent.memory.captures import format_time
from edge_agent.memory.errors import ContentTooLargeError, InvalidEntryError, InvalidTimestampError

DEFAULT_HALF_LIFE_DAYS = 7.0
BUILTIN_CATEGORIES = ("core", "daily", "conversation")
_LABEL = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$")
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_REF = re.compile(r"^(kref://[^\s]+|mem://[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
MAX_KEY_CHARS = 512


@dataclass(slots=True)
class Entry:
    """One memory entry; ``score`` is the final (decayed) relevance after recall, else the stored one."""

    id: str
    key: str
    content: str
    category: str
    timestamp: str
    namespace: str
    session_id: str | None = None
    importance: float = 0.5
    score: float | None = None
    superseded_by: str | None = None
    content_sha256: str = ""
    access_count: int = 0
    last_access: str | None = None
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    kref: str | None = None
    archived: bool = False
    workspace: str = ""

    @property
    def source_ref(self) -> str:
        """The reference a capture derived from this entry cites: its kref once synced, else mem://<id>."""
        return self.kref or f"mem://{self.id}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return {
            "id": self.id,
            "key": self.key,
            "title": self.title,
            "content": self.content,
            "category": self.category,
            "timestamp": self.timestamp,
            "session_id": self.session_id,
            "namespace": self.namespace,
            "importance": self.importance,
            "score": None if self.score is None else round(self.score, 6),
            "superseded_by": self.superseded_by,
            "content_sha256": self.content_sha256,
            "access_count": self.access_count,
            "last_access": self.last_access,
            "metadata": self.metadata,
            "kref": self.kref,
            "archived": self.archived,
            "workspace": self.workspace,
            "source_ref": self.source_ref,
        }


def entry_from_row(row: Any, workspace: str = "") -> Entry:
    """Build an Entry from an ``entries`` row (sqlite3.Row)."""
    try:
        metadata = json.loads(row["metadata"] or "{}")
        if not isinstance(metadata, dict):
            metadata = {"value": metadata}
    except (TypeError, ValueError):
        metadata = {"raw": row["metadata"]}
    return Entry(
        id=row["id"],
        key=row["key"],
        content=row["content"],
        category=row["category"],
        timestamp=row["timestamp"],
        namespace=row["namespace"],
        session_id=row["session_id"],
        importance=row["importance"],
        score=row["score"],
        superseded_by=row["superseded_by"],
        content_sha256=row["content_sha256"],
        access_count=row["access_count"],
        last_access=row["last_access"],
        title=row["title"],
        metadata=metadata,
        kref=row["kref"],
        archived=bool(row["archived"]),
        workspace=workspace,
    )


# --- validation -----------------------------------------------------------------------------------


def content_sha256(content: str) -> str:
    """SHA-256 of the UTF-8 content (the per-namespace dedup key)."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def check_content(content: object, limit: int, *, field: str = "content") -> str:
    """Content must be non-empty text within ``limit`` UTF-8 bytes."""
    if not isinstance(content, str):
        raise InvalidEntryError(f"{field} must be text, not {type(content).__name__}", field=field)
    if not content.strip():
        raise InvalidEntryError(f"{field} is empty; there is nothing to remember", field=field)
    size = len(content.encode("utf-8", errors="surrogatepass"))
    if size > limit:
        raise ContentTooLargeError(size, limit)
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidEntryError(f"{field} contains unpaired surrogates; send valid Unicode text", field=field) from None
    return content


def check_key(key: object) -> str:
    """Keys are non-empty single-line text up to MAX_KEY_CHARS."""
    if not isinstance(key, str) or not key.strip():
        raise InvalidEntryError("key must be non-empty text, e.g. 'preferred_i2c_bus'", field="key")
    key = key.strip()
    if len(key) > MAX_KEY_CHARS or _CONTROL.search(key) or "\n" in key or "\r" in key:
        raise InvalidEntryError(
            f"key must be one line of at most {MAX_KEY_CHARS} characters without control characters", field="key"
        )
    return key


def check_category(category: object) -> str:
    """Categories are lowercase labels: core, daily, conversation, or a custom one like 'sensor'."""
    if not isinstance(category, str):
        raise InvalidEntryError("category must be text such as 'core', 'daily' or 'conversation'", field="category")
    value = category.strip().lower()
    if not _LABEL.match(value):
        raise InvalidEntryError(
            f"category {category!r} is invalid: use core, daily, conversation or a custom label of letters, "
            "digits and _ . : - (up to 64 characters)",
            field="category",
        )
    return value


def check_namespace(namespace: object) -> str:
    """Namespaces are short path-like labels ('default', 'lab/bench-2')."""
    if not isinstance(namespace, str) or not _NAMESPACE.match(namespace.strip()):
        raise InvalidEntryError(
            f"namespace {namespace!r} is invalid: use letters, digits and _ . : / - (up to 128 characters)",
            field="namespace",
        )
    return namespace.strip()


def check_importance(value: object, *, field: str = "importance") -> float:
    """Importance is a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or not 0 <= value <= 1:
        raise InvalidEntryError(f"{field} must be a number from 0 to 1 (got {value!r})", field=field)
    return float(value)


def check_session(session_id: object) -> str | None:
    """Session ids are optional one-line text."""
    if session_id is None or session_id == "":
        return None
    if not isinstance(session_id, str) or len(session_id) > 256 or _CONTROL.search(session_id):
        raise InvalidEntryError("session_id must be one line of text up to 256 characters", field="session_id")
    return session_id


def check_ref(ref: object) -> str:
    """A source ref is a Kumiho kref (kref://...) or a local mem://<entry uuid>."""
    if not isinstance(ref, str) or not _REF.match(ref):
        raise InvalidEntryError(
            f"source ref {ref!r} is neither a kref (kref://project/space/item.kind?r=N) nor mem://<entry id>",
            field="source_refs",
        )
    return ref


def parse_time(value: object, *, field: str = "timestamp") -> datetime:
    """Parse an RFC 3339 timestamp that carries an offset ('Z' or '+02:00')."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidTimestampError(value, field=field) from None
    else:
        raise InvalidTimestampError(value, field=field)
    if dt.tzinfo is None:
        raise InvalidTimestampError(value, field=field)
    return dt.astimezone(UTC)


def normalize_time(value: object, *, field: str = "timestamp") -> str:
    """Validate and render a timestamp in the store's fixed UTC form."""
    return format_time(parse_time(value, field=field))


# --- decay ----------------------------------------------------------------------------------------


def effective_half_life(half_life_days: float | None) -> float:
    """A half-life <= 0 (or missing / not finite) falls back to the 7-day default."""
    if half_life_days is None or not math.isfinite(half_life_days) or half_life_days <= 0:
        return DEFAULT_HALF_LIFE_DAYS
    return float(half_life_days)


def decay_factor(timestamp: str, now: datetime, half_life_days: float | None) -> float | None:
    """``2^(-age_days / half_life)``, or None when the timestamp cannot be parsed. Future ages count as 0."""
    try:
        ts = datetime.fromisoformat(timestamp)
    except (TypeError, ValueError):
        return None
    if ts.tzinfo is None:
        return None
    age_days = max(0.0, (now - ts).total_seconds() / 86_400)
    return 2.0 ** (-age_days / effective_half_life(half_life_days))


def apply_decay(entries: list[Entry], now: datetime, half_life_days: float | None) -> list[Entry]:
    """Decay each entry's score in place: ``core`` never decays; no score or bad timestamp stays as is."""
    for e in entries:
        if e.score is None or e.category == "core":
            continue
        factor = decay_factor(e.timestamp, now, half_life_days)
        if factor is not None:
            e.score *= factor
    return entries


# --- query language -------------------------------------------------------------------------------

# FTS5's unicode61 tokenizer splits on everything that is not a letter or digit; split the same way
# so each query token is one FTS token, then quote it so user text is never FTS syntax.
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from has have how i in is it its me my of on or our should so "
    "that the their them then there these this to was we what when where which who why will with you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))
MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """Distinct lowercase word tokens of a query, stopwords dropped unless nothing else is left."""
    tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text or "")))
    kept = [t for t in tokens if t not in STOPWORDS] or tokens
    return kept[:MAX_QUERY_TERMS]


def fts_match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH string: every term a quoted string, OR-ed (bm25 ranks entries matching more)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _stem(token: str) -> str:
    for suffix in ("ing", "ies", "es", "ed", "ly", "s"):
        if len(token) > len(suffix) + 2 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def term_coverage(terms: list[str], *texts: str) -> float:
    """Fraction of query terms present in the texts (light suffix stemming, like the FTS porter stemmer)."""
    if not terms:
        return 0.0
    words = {_stem(t.lower()) for text in texts for t in _TOKEN.findall(text or "")}
    return sum(1 for t in terms if _stem(t) in words) / len(terms)


def estimate_tokens(text: str) -> int:
    """Conservative token estimate: 4 ASCII characters per token, one token per other character."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def slug(text: str, limit: int = 48) -> str:
    """Lowercase words joined by '-' (for capture keys)."""
    return "-".join(t.lower() for t in _TOKEN.findall(text))[:limit].strip("-") or "untitled"


def to_json(data: Any) -> str:
    """Compact JSON for metadata columns."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
