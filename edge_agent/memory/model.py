"""Entry record, input validation, time parsing, decay and the recall query language."""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from edge_agent.jsontypes import JsonObject
from edge_agent.memory.captures import format_time
from edge_agent.memory.errors import ContentTooLargeError, InvalidEntryError, InvalidTimestampError

DEFAULT_HALF_LIFE_DAYS = 7.0
BUILTIN_CATEGORIES = ("core", "daily", "conversation")
_LABEL = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$")
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_REF = re.compile(r"^(kref://[^\s]+|mem://[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
MAX_KEY_CHARS = 512
# The store's own time form (format_time): what normalize_time returns unchanged.
_CANONICAL_TIME = re.compile(r"[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\Z")


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
    metadata: JsonObject = field(default_factory=dict)
    kref: str | None = None
    archived: bool = False
    workspace: str = ""
    memory_type: str | None = None

    @property
    def source_ref(self) -> str:
        """The reference a capture derived from this entry cites: its kref once synced, else mem://<id>."""
        return self.kref or f"mem://{self.id}"

    def to_dict(self) -> JsonObject:
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
            "memory_type": self.memory_type,
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
        memory_type=row["memory_type"],
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
    if content.isascii():  # the common case: one byte per character, no surrogates possible
        if len(content) > limit:
            raise ContentTooLargeError(len(content), limit)
        return content
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
    key = " ".join(key.split())  # a key is one line: newlines and tabs become single spaces
    if len(key) > MAX_KEY_CHARS or _CONTROL.search(key):
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
    if isinstance(value, str) and _CANONICAL_TIME.match(value):
        # Already in the store's form (every capture's created_at): only check that it is a real date.
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise InvalidTimestampError(value, field=field) from None
        return value
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
    return math.pow(2.0, -age_days / effective_half_life(half_life_days))


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

# FTS5's unicode61 tokenizer (remove_diacritics 2) splits on everything that is not a letter or digit
# and folds case and accents; the store folds and splits the same way, so a query term is exactly one
# index token. Terms reach MATCH only as quoted strings: user text is never FTS syntax.
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORD_TEXT = (
    "a about all also an and any are as at be been by can could did do does for from get got had has have how "
    "i if in into is it its just know me my of on or our please should so tell than that the their them then "
    "there these this to us was we were what when where which who why will with would you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))
MAX_QUERY_TERMS = 12
# Light suffix stripping; the stem is then matched as a prefix ("calibrat"* finds calibrate,
# calibrated, calibration). Tokens with digits (part numbers, pins, addresses) are never stemmed.
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ies", "ied", "ers", "er", "es", "ed", "ly", "s")
MIN_STEM = 3


def fold(text: str) -> str:
    """Lowercase and strip accents, as the FTS tokenizer does."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def tokens(text: str) -> list[str]:
    """Index tokens of a text (folded)."""
    return _TOKEN.findall(fold(text or ""))


def stem(token: str) -> str:
    """Strip one common English suffix, keeping at least MIN_STEM characters."""
    if any(ch.isdigit() for ch in token):
        return token
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= MIN_STEM:
            if suffix == "s" and token.endswith("ss"):
                return token
            return token[: -len(suffix)]
    return token


def query_terms(text: str) -> list[str]:
    """Distinct stems of a query's words, stopwords dropped unless nothing else is left."""
    words = list(dict.fromkeys(tokens(text or "")))
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(stem(w) for w in kept))[:MAX_QUERY_TERMS]


def is_prefix_term(term: str) -> bool:
    """Words of 4+ letters match as prefixes; terms with digits ('gpio1' must not find 'gpio17') exactly."""
    return len(term) >= 4 and not any(ch.isdigit() for ch in term)


def term_forms(term: str) -> tuple[str, ...]:
    """The exact index tokens a non-prefix term stands for (short words also as plurals: fan, fans)."""
    if any(ch.isdigit() for ch in term) or len(term) < MIN_STEM:
        return (term,)
    return (term, term + "s", term + "es")


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_term(term: str) -> str:
    """One term as an FTS5 expression (quoted strings only; a prefix query for long words)."""
    if is_prefix_term(term):
        return _quote(term) + "*"
    forms = term_forms(term)
    return _quote(forms[0]) if len(forms) == 1 else "(" + " OR ".join(_quote(f) for f in forms) + ")"


def fts_match_expression(terms: list[str], op: str = "OR") -> str:
    """An FTS5 MATCH string joining the terms with OR (or AND)."""
    return f" {op} ".join(fts_term(t) for t in terms)


class TermMatcher:
    """Tests texts for query terms with the same rule the index query uses (built once per query)."""

    def __init__(self, terms: list[str]) -> None:
        self._prefix = [t for t in terms if is_prefix_term(t)]
        self._exact = [(t, frozenset(term_forms(t))) for t in terms if not is_prefix_term(t)]

    def matched(self, *texts: str) -> set[str]:
        """The terms present in the texts."""
        return set(self.doc_counts(*texts))

    def doc_counts(self, *texts: str) -> dict[str, int]:
        """For each term present, how many distinct index tokens of the texts it matches.

        This is what one entry adds to the term's document count, which sums the vocabulary's per-token
        counts over the term's forms: an entry holding both "stand" and "stands" counts twice.
        """
        words = sorted(set(_TOKEN.findall(fold(" ".join(texts)))))
        out: dict[str, int] = {}
        for t, forms in self._exact:
            n = len(forms.intersection(words))
            if n:
                out[t] = n
        for t in self._prefix:
            i = bisect.bisect_left(words, t)
            n = 0
            while i + n < len(words) and words[i + n].startswith(t):
                n += 1
            if n:
                out[t] = n
        return out


def matched_terms(terms: list[str], *texts: str) -> set[str]:
    """Which terms a text contains, with the same rule the index query uses."""
    return TermMatcher(terms).matched(*texts)


def idf(doc_count: int, total: int) -> float:
    """BM25's inverse document frequency, always positive."""
    return math.log(1 + (total - doc_count + 0.5) / (doc_count + 0.5))


def estimate_tokens(text: str) -> int:
    """Conservative token estimate: 4 ASCII characters per token, one token per other character."""
    if text.isascii():
        return math.ceil(len(text) / 4)
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def slug(text: str, limit: int = 48) -> str:
    """Lowercase words joined by '-' (for capture keys)."""
    return "-".join(tokens(text))[:limit].strip("-") or "untitled"


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def to_json(data: Any) -> str:
    """Compact JSON for metadata columns."""
    return _JSON.encode(data)
