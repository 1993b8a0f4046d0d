"""``[device]``: which device this is and how much `edge-agent run` logs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from edge_agent.config._base import _checked, _Section
from edge_agent.names import device_id_problem


class DeviceConfig(_Section):
    id: str = Field("", description="Stable device id; empty derives one from /etc/machine-id.")
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log level of `edge-agent run`; each -v lowers it one step.")

    @field_validator("id")
    @classmethod
    def _device_id(cls, v: str) -> str:
        return _checked(v.strip(), device_id_problem)
