"""``[kumiho]``: syncing captures upstream, the outbox bounds, retries and secret screening."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from edge_agent.config._base import _Section


class KumihoConfig(_Section):
    enabled: bool = Field(False, description="Queue captures in the outbox and sync them upstream.")
    mode: Literal["cloud", "local_ce"] = Field("cloud", description="cloud (endpoint) or local_ce (community server "
                                               "on loopback).")
    endpoint: str = Field("", description="gRPC target: https://HOST[:PORT] or HOST:443; plain HOST:PORT only "
                          "on loopback. Empty with mode local_ce means 127.0.0.1:9190.")
    project: str = Field("CognitiveMemory", description="Kumiho project the captures go to.")
    space_path: str = Field("", description="Default space; empty means Devices/<device_id>.")
    token_file: str = Field("", description="File holding the bearer token; KUMIHO_AUTH_TOKEN wins when set.")
    memory_retrieval_limit: int = Field(3, ge=1, description="Cap on the `limit` of the memory_recall and "
                                        "memory_engage tools.")
    outbox_max_mb: float = Field(64.0, gt=0, description="Bound on queued + dead-lettered captures (bytes).")
    outbox_max_rows: int = Field(100_000, gt=0, description="Bound on queued + dead-lettered captures (rows).")
    outbox_full_policy: Literal["refuse_low_importance", "refuse_all"] = Field(
        "refuse_low_importance", description="refuse_low_importance: captures below low_importance_below are "
        "refused from 90 % of a bound, others at 100 %; refuse_all: everything at 100 %.")
    low_importance_below: float = Field(0.5, ge=0.0, le=1.0, description="Importance under which a capture counts as "
                                        "low for outbox_full_policy.")
    batch_size: int = Field(200, ge=1, le=200, description="Rows per BatchCreateRevisions call.")
    rpc_timeout_s: float = Field(10.0, gt=0, description="Deadline of each gRPC call.")
    sync_interval_s: float = Field(5.0, gt=0, description="How often the daemon's sync worker wakes when no retry is "
                                   "due.")
    backoff_initial_s: float = Field(1.0, gt=0, description="First retry delay; doubles each retry, half fixed and "
                                     "half random jitter.")
    backoff_max_s: float = Field(300.0, gt=0, description="Longest retry delay.")
    max_attempts: int = Field(50, ge=1, description="Answered failures before a capture is dead-lettered; "
                              "time offline never counts.")
    secret_policy: Literal["redact", "reject"] = Field("redact", description="Credentials found in anything written "
                                                       "to memory, with or without sync: redact replaces each with "
                                                       "[REDACTED:<kind>:<tag>], reject refuses the write.")

    @field_validator("project", "space_path")
    @classmethod
    def _kref_path(cls, v: str, info: ValidationInfo) -> str:
        # Kumiho path segments are word characters and '-' (no '.', which splits name from kind).
        v = v.strip().strip("/")
        if info.field_name == "project" and not v:
            raise ValueError("must name the Kumiho project, e.g. 'CognitiveMemory'")
        for seg in v.split("/") if v else ():
            if not re.fullmatch(r"\w[\w-]*", seg):
                raise ValueError(
                    f"segment {seg!r} is not a valid Kumiho name: use letters, digits, '_' and '-' "
                    "(e.g. 'Lab/Bench-3')"
                )
        return v

    @model_validator(mode="after")
    def _backoff_order(self) -> KumihoConfig:
        if self.backoff_max_s < self.backoff_initial_s:
            raise ValueError("backoff_max_s must be >= backoff_initial_s")
        return self
