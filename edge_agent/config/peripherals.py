"""``[peripherals]`` and ``[[peripherals.boards]]``: which boards are opened, and through which adapter URL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from edge_agent.config._base import _Section
from edge_agent.errors import ConfigError
from edge_agent.paths import bundled_datasheets_dir

Transport = Literal["sim", "serial", "bridge", "native", "linux", "aardvark", "ftdi"]


class BoardConfig(_Section):
    """One ``[[peripherals.boards]]`` entry: which board, and how it is reached."""

    board: str = Field(description="Board id: a file in boards/ (e.g. nucleo-f401re, rpi-4b) or a board known from a "
                       "datasheet.")
    name: str = Field("", description="Adapter name used by tools and CLI; defaults to `board`.")
    transport: Transport = Field("serial", description="How the board is reached when `url` is empty: sim, "
                                 "serial/bridge (path, baud), native/linux, aardvark or ftdi (path).")
    url: str = Field("", description="Adapter URL; overrides transport/path/baud when set.")
    path: str = Field("", description="Serial device for serial/bridge, Aardvark port or serial, or the pyftdi URL "
                      "for ftdi.")
    baud: int = Field(115200, gt=0, description="Serial speed of the firmware bridge.")

    @field_validator("board")
    @classmethod
    def _board_lower(cls, v: str) -> str:
        v = v.strip().lower()
        if not v:
            raise ValueError("must name a board, e.g. 'nucleo-f401re' or 'rpi-4b'")
        return v

    @property
    def adapter_name(self) -> str:
        return self.name or self.board

    def adapter_url(self) -> str:
        """The adapter URL this entry stands for (Revka's transport/path/baud mapped onto URLs)."""
        if self.url:
            return self.url
        if self.transport == "sim":
            return f"sim://{self.board}"
        if self.transport in ("serial", "bridge"):
            if not self.path:
                raise ConfigError(
                    f"peripherals.boards[{self.board}].path: transport {self.transport!r} needs the serial "
                    "device path, e.g. path = \"/dev/ttyACM0\""
                )
            return f"bridge://{self.path}?baud={self.baud}"
        if self.transport in ("native", "linux"):
            return "linux://"
        if self.transport == "aardvark":
            return f"aardvark://{self.path}"
        return self.path or "ftdi://ftdi:232h/1"


class PeripheralsConfig(_Section):
    enabled: bool = Field(True, description="false opens no board at all.")
    datasheet_dir: str = Field("", description="Datasheet directory; empty uses the bundled datasheets.")
    boards: list[BoardConfig] = Field(
        default_factory=lambda: [BoardConfig(board="nucleo-f401re", transport="sim")]
    )

    @model_validator(mode="after")
    def _unique_names(self) -> PeripheralsConfig:
        seen: set[str] = set()
        for b in self.boards:
            if b.adapter_name in seen:
                raise ValueError(
                    f"two boards share the adapter name {b.adapter_name!r}; give one a distinct `name`"
                )
            seen.add(b.adapter_name)
        return self

    def datasheet_path(self, base: Path | None = None) -> Path:
        if not self.datasheet_dir:
            return bundled_datasheets_dir()
        p = Path(os.path.expanduser(self.datasheet_dir))
        return p if p.is_absolute() or base is None else base / p
