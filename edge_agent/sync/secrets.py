"""Credential screening for captures before they are queued for upload.

Captures often quote command lines, config snippets and logs; the ones that carry an API key, a
bearer token, a password or a private key must not leave the device. :func:`scan` finds them by
their published formats (fixed prefixes and lengths) and by ``key = value`` assignments whose key
names a secret; :func:`redact` replaces each with ``[REDACTED:<kind>]``. Patterns are data, kept in
one table, so a new credential format is one line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

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


# Every pattern above contains one of these (case-insensitively); text without any is clean, which
# lets the common case (no credential at all) cost one regex search instead of thirteen.
_TRIGGER = re.compile(
    r"(?i)A[KSGIRNP][IPDONV]A|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-|AIza|k_(?:live|test)_|eyJ|bearer|://"
    r"|pass|pwd|secret|key|token|-----BEGIN"
)


@dataclass(frozen=True)
class Finding:
    """One credential found: its kind and where (field name, character span)."""

    kind: str
    field: str
    start: int
    end: int


def scan(text: str, field: str = "content") -> list[Finding]:
    """Every credential-looking span in `text`, earliest first, overlaps removed."""
    if not _TRIGGER.search(text):
        return []
    found: list[Finding] = []
    for kind, pattern in PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span("secret") if "secret" in pattern.groupindex and m.group("secret") else m.span()
            if _placeholder(text[start:end]):
                continue
            found.append(Finding(kind, field, start, end))
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    merged: list[Finding] = []
    for f in found:
        if merged and f.start < merged[-1].end:
            continue  # inside an earlier (longer or first-listed) finding
        merged.append(f)
    return merged


def _placeholder(value: str) -> bool:
    # `password=<your password>`, `token: ${TOKEN}`, `api_key=****`: documentation, not secrets.
    v = value.strip("\"'")
    return bool(
        re.fullmatch(r"[*xX.\-_]+|<[^>]*>?|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\[REDACTED:[a-z_]+\]?|(?i:redacted)", v)
    )


def redact(text: str, findings: list[Finding]) -> str:
    """`text` with each finding replaced by ``[REDACTED:<kind>]``."""
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def summarize(findings: list[Finding]) -> dict[str, int]:
    """Counts per kind (never the values)."""
    return dict(Counter(f.kind for f in findings))
