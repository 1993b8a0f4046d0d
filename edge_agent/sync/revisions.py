"""How a capture maps onto Kumiho: its space, its item kref and its revision metadata."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from edge_agent.config import KumihoConfig
from edge_agent.identity import ClockReading, corrected_wall_time

SCHEMA = "kumiho.agent_memory.v1"
ITEM_KIND = "conversation"
EDGE_TYPE = "DERIVED_FROM"
PUBLISHED = "published"
SUMMARY_MAX = 2000
TITLE_MAX = 120
# A revision kref names one revision (…?r=N); anything else (item kref, ?t=tag, ?time=) is resolved first.
REVISION_KREF = re.compile(r"^kref://[^?\s]+\.[^/?\s]+\?r=\d+$")


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


def item_kref(project: str, space: str, capture_id: str) -> str:
    """The item a capture's revision belongs to: one item per capture, named after its id."""
    return f"kref://{project}/{space}/cap-{capture_id}.{ITEM_KIND}"
