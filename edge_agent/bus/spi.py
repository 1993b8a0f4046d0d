"""One SPI chip select of an adapter (:class:`SPIDevice`)."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from edge_agent.bus.checks import as_bytes, check_length
from edge_agent.errors import AdapterUnavailableError

if TYPE_CHECKING:
    from edge_agent.bus.adapter import Adapter


class SPIDevice(abc.ABC):
    """One SPI chip select of an adapter, in controller mode, with a fixed mode and clock."""

    max_transfer: int = 4096

    def __init__(self, adapter: Adapter, bus: int, cs: int, *, mode: int, speed_hz: int) -> None:
        self.adapter = adapter
        self.bus, self.cs, self.mode, self.speed_hz = bus, cs, mode, speed_hz
        self._closed = False

    def transfer(self, data: bytes | bytearray | list[int]) -> bytes:
        """Clock ``data`` out on MOSI while reading as many bytes from MISO (full duplex, CS held)."""
        where = self.adapter.url
        if self._closed or self.adapter.closed:
            raise AdapterUnavailableError(f"{where}: SPI {self.bus}.{self.cs} is closed; open the adapter again",
                                          adapter=where)
        payload = as_bytes(data, where)
        check_length(len(payload), self.max_transfer, where, "SPI transfer")
        self.adapter.safety.check_spi(where, self.bus, self.cs)
        return self._transfer(payload)

    def close(self) -> None:
        """Release the device (idempotent)."""
        if not self._closed:
            self._closed = True
            self._release()

    @abc.abstractmethod
    def _transfer(self, data: bytes) -> bytes: ...

    def _release(self) -> None:  # noqa: B027 - optional hook
        """Free backend resources of this chip select."""

