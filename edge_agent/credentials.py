"""Credential screening: what is written to the device's memory (and so what sync uploads) holds no secret.

Entries and captures often quote command lines, config snippets, logs and what a person said; the ones
that carry an API key, a bearer token, a password or a private key must not be stored, exported or
uploaded. :func:`scan` finds them three ways:

* by their published formats: the detectors of the ``detect-secrets`` library (the ``secrets``
  extra; AWS, GitHub, GitLab, Slack, Stripe, Twilio, SendGrid, npm, PyPI, Azure, JWTs, private keys,
  URL credentials, ...) beside a short table of formats kept here, so the base install still screens
  the common ones;
* by ``key = value`` assignments whose key names a secret (``password=``, ``api_key:``,
  ``Password=...;`` in connection strings);
* in prose: a random-looking word (long, mixed characters, high Shannon entropy) a few words after
  "password", "secret", "token", "key", "passphrase" or "credential" ("the aws secret access key is
  wJalr..."), since a sentence has no assignment for the formats above to anchor on.

:func:`redact` replaces each finding with ``[REDACTED:<kind>]``, or with ``[REDACTED:<kind>:<tag>]``
when given a key: the tag is a keyed hash of the secret, so two captures that differ only in their
secret stay two captures (the memory store deduplicates identical content) while the secret itself
cannot be recovered or confirmed from the tag without the device's key. :class:`Screen` applies a
policy (redact, or refuse with :class:`~edge_agent.errors.SecretRejectedError`) with the device's key
from the state directory; the memory store screens every write with it, and the sync outbox screens
what it queues with the same key.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from edge_agent.errors import MemoryStoreError, SecretRejectedError
from edge_agent.paths import private_dir, write_private

REDACTION_KEY_FILE = "sync-redaction.key"  # keys the tags that keep differently redacted texts distinct
SCREENING_FILE = "sync-screening.json"  # counts of writes refused for holding credentials
Policy = Literal["redact", "reject"]

# (kind, pattern). Group "secret", when present, is the part that is replaced; otherwise the whole match.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY"
        r"(?: BLOCK)?-----|\Z)")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})\b")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("stripe_key", re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("bearer_token", re.compile(r"(?i)\b(?:authorization\s*[:=]\s*)?bearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{16,})")),
    ("url_credentials", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?P<secret>[^\s@/]+)@")),
    ("assigned_secret", re.compile(
        r"(?i)\b(?:[a-z0-9_.-]*(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key"
        r"|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|client[_-]?secret|token))"
        r"[\"']?\s*[:=]\s*[\"']?(?P<secret>[^\s\"',;]{6,})")),
)


# Every pattern above contains one of these (matched in the lower-cased text, which is several times
# faster than a case-insensitive search), and most other credential formats are one run of 16 or more
# non-space characters; text with neither is clean, so the common case (no credential at all) costs two
# regex searches instead of running every detector.
_TRIGGER = re.compile(
    r"a[ksgirnp][ipdonv]a|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|aiza|k_(?:live|test)_|eyj|bearer|://"
    r"|pass|pwd|secret|key|token|credential|-----begin"
)
_LONG_RUN = re.compile(r"\S{16}")
_MARK = re.compile(r"\[REDACTED:([a-z0-9_]+)(?::[0-9a-f]{8})?\]")  # what redact() writes
# What each pattern cannot match without, checked on the lower-cased text before the pattern runs (the
# patterns cost ~70 us on a sentence that merely mentions a key or a token; most writes do): literal
# substrings, any of which must be present, or None for "a run of 16 or more non-space characters"
# (every format whose secret is that long: access key ids, API keys, tokens, JWTs).
_NEEDS: dict[str, tuple[str, ...] | re.Pattern[str] | None] = {
    "private_key": ("private key",),
    "slack_token": ("xox",),
    "bearer_token": ("bearer",),
    "url_credentials": ("://",),
    # an assignment: a secret word, then (past the rest of its name and a quote) ':' or '='; the pattern
    # itself tries a name at every word boundary, 30 us on a sentence, this check ~1 us
    "assigned_secret": re.compile(r"(?:pass|pwd|secret|key|token)[a-z0-9_.-]*[\"']?\s*[:=]"),
}

# Prose: a secret word, then the next few words are looked at for a random-looking one.
_SECRET_WORD = re.compile(r"(?i)\b(?:pass(?:words?|phrases?|wd|codes?)|pwd|secrets?|tokens?|keys?|credentials?)\b")
_WORD = re.compile(r"[^\s\"'`(),;<>\[\]{}]+")
_PROSE_WINDOW = 6  # words after the secret word
_PROSE_MIN_ENTROPY = 3.0  # bits per character of a short secret (10 distinct characters are 3.3)
_TRIM = ".,:;!?=*"
# Identifiers that are random-looking but not secrets: ids and references the device itself writes.
_NOT_SECRET = re.compile(r"(?i)(?:kref|mem|https?)://|.*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

@dataclass(frozen=True)
class Finding:
    """One credential found: its kind and where (field name, character span)."""

    kind: str
    field: str
    start: int
    end: int


def scan(text: str, field: str = "content") -> list[Finding]:
    """Every credential-looking span in `text`, earliest first, overlaps removed."""
    lowered = text.lower()
    long_run = _LONG_RUN.search(text) is not None
    if not long_run and not _TRIGGER.search(lowered):
        return []
    found: list[Finding] = []
    for kind, pattern in PATTERNS:
        needs = _NEEDS.get(kind)
        if needs is None:
            if not long_run:
                continue
        elif isinstance(needs, re.Pattern):
            if not needs.search(lowered):
                continue
        elif not any(n in lowered for n in needs):
            continue
        for m in pattern.finditer(text):
            start, end = m.span("secret") if "secret" in pattern.groupindex and m.group("secret") else m.span()
            if _placeholder(text[start:end]):
                continue
            found.append(Finding(kind, field, start, end))
    for m in _SECRET_WORD.finditer(text):
        for n, w in enumerate(_WORD.finditer(text, m.end())):
            if n >= _PROSE_WINDOW:
                break
            start, end = w.start() + len(w.group()) - len(w.group().lstrip(_TRIM)), w.end()
            end -= len(text[start:end]) - len(text[start:end].rstrip(_TRIM))
            value = text[start:end]
            if looks_random(value) and not _placeholder(value):
                found.append(Finding("prose_secret", field, start, end))
    # The library's detectors all look for a token of 16 or more characters (keys, tokens, URLs with
    # credentials); text without such a run is not handed to them.
    for kind, detect in _library_detectors() if long_run else ():
        for value in set(detect(text)):
            if len(value) < 8 or _placeholder(value):
                continue
            for start in _occurrences(text, value):
                found.append(Finding(kind, field, start, start + len(value)))
    if "[REDACTED:" in text:
        # Text screened before: its marks are not secrets, nor is a mark's tag the value of its kind's name
        # ("access_key:1a2b3c4d"), so screening twice changes nothing.
        marks = [m.span() for m in _MARK.finditer(text)]
        found = [f for f in found if not any(f.start < end and start < f.end for start, end in marks)]
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    merged: list[Finding] = []
    for f in found:
        if merged and f.start < merged[-1].end:
            continue  # inside an earlier (longer or first-listed) finding
        merged.append(f)
    return merged


def looks_random(value: str) -> bool:
    """A word that reads as a generated secret rather than a word, a number, a part name or an id.

    Short (8-19 characters): upper and lower case letters with a digit or symbol, and at least 3 bits of
    entropy per character ("Xk9mP2vLq7"; not "STM32F401RE", "nucleo-f401re", "firmware_v2.3.1").
    Long (20+): two character classes and at least 3.5 bits (hex and base64 keys).
    """
    if len(value) < 8:
        return False
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    short = len(value) < 20
    if short and not (upper and lower):  # most words of a sentence stop here, before the costlier checks
        return False
    if _NOT_SECRET.match(value):
        return False
    digit = any(c.isdigit() for c in value)
    other = not value.isalnum()
    if short:
        return (digit or other) and shannon_entropy(value) >= _PROSE_MIN_ENTROPY
    return upper + lower + digit + other >= 2 and shannon_entropy(value) >= 3.5


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _occurrences(text: str, value: str) -> Iterator[int]:
    at = text.find(value)
    while at >= 0:
        yield at
        at = text.find(value, at + len(value))


# detect-secrets detectors that do not apply to a capture's text: entropy of quoted strings and keyword
# assignments in source files (done above for prose), and public IP addresses (not credentials).
_SKIPPED_DETECTORS = frozenset({"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword",
                                "Public IP (ipv4)"})
_detectors: list[tuple[str, Callable[[str], Iterator[str]]]] | None = None
_detectors_lock = threading.Lock()


def _library_detectors() -> list[tuple[str, Callable[[str], Iterator[str]]]]:
    """(kind, detector) for each format detector of the detect-secrets library; empty when it is not
    installed (the formats above still apply). Loaded on first use: the library takes ~0.5 s to import."""
    global _detectors
    if _detectors is None:
        with _detectors_lock:
            if _detectors is None:
                try:
                    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
                except ImportError:
                    _detectors = []
                else:
                    plugins: dict[str, Any] = get_mapping_from_secret_type_to_class()
                    _detectors = [(_kind(name), plugins[name]().analyze_string) for name in sorted(plugins)
                                  if name not in _SKIPPED_DETECTORS]
    return _detectors


def _kind(secret_type: str) -> str:
    """detect-secrets' secret type as a finding kind: 'AWS Access Key' -> 'aws_access_key'."""
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


def library_available() -> bool:
    """Whether the detect-secrets detectors are in use (the ``secrets`` extra is installed)."""
    return bool(_library_detectors())


def _placeholder(value: str) -> bool:
    # `password=<your password>`, `token: ${TOKEN}`, `api_key=****`: documentation, not secrets.
    v = value.strip("\"'")
    return bool(
        re.fullmatch(r"[*xX.\-_]+|<[^>]*>?|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\[?REDACTED(?::[a-z0-9_]+){0,2}\]?"
                     r"|(?i:redacted)", v)
    )


def redact(text: str, findings: list[Finding], key: bytes | None = None) -> str:
    """`text` with each finding replaced by ``[REDACTED:<kind>]`` (with `key`: ``[REDACTED:<kind>:<tag>]``,
    the tag a keyed hash of the secret, the same for the same secret and key)."""
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        out.append(text[pos:f.start])
        if key is None:
            out.append(f"[REDACTED:{f.kind}]")
        else:
            tag = hmac.new(key, text[f.start:f.end].encode("utf-8"), hashlib.sha256).hexdigest()[:8]
            out.append(f"[REDACTED:{f.kind}:{tag}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def redaction_marks(texts: Iterable[str]) -> dict[str, int]:
    """Counts per kind of the ``[REDACTED:<kind>:<tag>]`` marks in already screened texts."""
    counts: Counter[str] = Counter()
    for text in texts:
        if "[REDACTED:" in text:
            counts.update(_MARK.findall(text))
    return dict(counts)


def summarize(findings: list[Finding]) -> dict[str, int]:
    """Counts per kind (never the values)."""
    return dict(Counter(f.kind for f in findings))


# --- policy and key -------------------------------------------------------------------------------


_keys: dict[Path, bytes] = {}
_keys_lock = threading.Lock()


def redaction_key(state_dir: str | os.PathLike[str]) -> bytes:
    """This device's key for redaction tags: 32 random bytes in ``<state>/sync-redaction.key``, made once, 0600.

    Texts that differ only in their secret must not become identical once redacted, or the memory store's
    deduplication would keep one of them; a keyed hash tells them apart without letting anyone holding the
    text test guesses of the secret. The file is created without replacing one another process made first,
    so every process of the device tags the same secret the same way.
    """
    path = Path(state_dir) / REDACTION_KEY_FILE
    with _keys_lock:
        key = _keys.get(path)
        if key is not None:
            return key
        if not path.exists():
            private_dir(path.parent)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
            write_private(tmp, os.urandom(32), fsync=True)
            try:
                os.link(tmp, path)  # fails if another process made the key first: theirs is used
            except FileExistsError:
                pass
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        key = path.read_bytes()
        if len(key) < 16:
            raise MemoryStoreError(f"{path} is damaged ({len(key)} bytes): text holding credentials cannot be "
                                   "redacted and stored until it is deleted (a new key is then made; texts "
                                   "redacted before keep their tags)")
        _keys[path] = key
        return key


class Screening(TypedDict):
    """The counts of writes refused for containing credentials: in all, and by kind of credential."""

    rejected_captures: int
    rejected: dict[str, int]


def read_screening(state_dir: str | os.PathLike[str]) -> Screening:
    """Counts of writes refused for containing credentials (zero when none were, or the file is unreadable)."""
    out = Screening(rejected_captures=0, rejected={})
    try:
        data = json.loads((Path(state_dir) / SCREENING_FILE).read_text())
    except (OSError, ValueError):
        return out
    if isinstance(data, dict):
        if isinstance(n := data.get("rejected_captures"), int):
            out["rejected_captures"] = n
        if isinstance(kinds := data.get("rejected"), dict):
            out["rejected"] = {str(k): v for k, v in kinds.items() if isinstance(v, int)}
    return out


class Screen:
    """Screens named text fields with one policy and the device's redaction key. Thread-safe."""

    def __init__(self, state_dir: str | os.PathLike[str], policy: Policy = "redact") -> None:
        self.state_dir = Path(state_dir)
        self.policy = policy
        self._lock = threading.Lock()

    def fields(self, values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, int]]:
        """The values that held credentials, redacted (by field name), and the counts per kind.

        Under the ``reject`` policy a finding raises :class:`SecretRejectedError` (and is counted in
        ``<state>/sync-screening.json``) instead. Fields without findings are left out of the result.
        """
        found = {name: fs for name, text in values.items() if (fs := scan(text, name))}
        if not found:
            return {}, {}
        every = [f for fs in found.values() for f in fs]
        kinds = summarize(every)
        if self.policy == "reject":
            self.count_rejection(kinds)
            raise SecretRejectedError(kinds, sorted(found))
        key = redaction_key(self.state_dir)
        return {name: redact(values[name], fs, key) for name, fs in found.items()}, kinds

    def text(self, value: str, field: str) -> tuple[str, dict[str, int]]:
        """One value screened: (the value, redacted where needed; counts per kind)."""
        changed, kinds = self.fields({field: value})
        return changed.get(field, value), kinds

    def count_rejection(self, kinds: Mapping[str, int]) -> None:
        """Count a refused write; it never reaches a transaction, so the count lives in a small state file."""
        path = self.state_dir / SCREENING_FILE
        with self._lock:
            data = read_screening(self.state_dir)
            data["rejected_captures"] += 1
            for kind, n in kinds.items():
                data["rejected"][kind] = data["rejected"].get(kind, 0) + n
            private_dir(self.state_dir)
            write_private(path, json.dumps(data, sort_keys=True))
