"""The agent's tools: thin typed functions over the runtime (no `mcp` import here).

`edge_agent.mcp.server` registers every public method of :class:`Tools` under its own name; the
signature is the tool's input schema, the docstring its description. Tool names follow what agents
already know: the Revka runtime's hardware tools (``gpio_read``, ``i2c_read {addr, register,
len}``...) and Kumiho's memory tools (``memory_engage``, ``memory_reflect`` with ``query``,
``limit``, ``memory_types``, ``min_score``, ``session_id``, ``response``, ``captures``,
``source_krefs``, ``space_path``). One tool per operation; ``adapter`` or ``board`` picks the
configured board. Errors are raised from the edge_agent error tree with messages written for the
agent: what failed, why, and what to try.
"""

from __future__ import annotations

import logging
from typing import Annotated, Literal

from pydantic import Field

from edge_agent.errors import EdgeAgentError, InvalidAddressError
from edge_agent.runtime import Runtime
from edge_agent.services import hardware as hw
from edge_agent.services import lookups, memory, upkeep
from edge_agent.services.args import (
    HEX_BYTES,
    AdapterArg,
    AddrArg,
    BoardArg,
    BusArg,
    ByteList,
    CaptureIn,
    LimitArg,
    MemoryTypes,
    MinScore,
    PinArg,
    QueryArg,
    SpacePath,
    jsonable,
)
from edge_agent.services.core import Action, In, Out
from edge_agent.services.resources import RuntimeResources
from edge_agent.services.results import (
    BoardInfo,
    Capabilities,
    DatasheetFiles,
    DatasheetHits,
    DatasheetText,
    EngageResult,
    ExportResult,
    ForgetResult,
    GpioResult,
    HardwareContext,
    I2CReadResult,
    I2CScanResult,
    I2CWriteResult,
    MemoryEntry,
    PinRecord,
    RecallResult,
    ReflectResult,
    RuntimeStatus,
    SensorReading,
    SpiResult,
    SyncStatus,
)

_jsonable = jsonable  # the name other modules imported it under

log = logging.getLogger(__name__)

class Tools:
    """Every MCP tool, bound to one runtime; each public method is one tool."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime
        self._res = RuntimeResources(runtime)

    def _do(self, act: Action[In, Out], **args: object) -> Out:
        """Run the service action ``act`` with these arguments (the action's input model checks them again)."""
        return act(self._res, act.parse(args))

    # --- hardware: bound to the service actions ---------------------------------------------------

    def gpio_read(self, pin: PinArg, adapter: AdapterArg = None, board: BoardArg = None) -> GpioResult:
        """Read the level (0 or 1) of a GPIO pin; pins accept names, numbers and aliases like 'red_led'."""
        return self._do(hw.gpio_read, pin=pin, adapter=adapter, board=board)

    def gpio_write(self, pin: PinArg, value: Annotated[int, Field(ge=0, le=1, description="0 (low) or 1 (high).")],
                   adapter: AdapterArg = None, board: BoardArg = None) -> GpioResult:
        """Drive a GPIO pin low (0) or high (1); the [hardware.safety] policy may refuse and says how to allow it."""
        return self._do(hw.gpio_write, pin=pin, value=value, adapter=adapter, board=board)

    def i2c_scan(self, adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CScanResult:
        """List the 7-bit I2C addresses that acknowledge on a bus (driver-owned ones as busy, unprobed)."""
        return self._do(hw.i2c_scan, adapter=adapter, board=board, bus=bus)

    def i2c_read(self, addr: AddrArg,
                 register: Annotated[int | str | None, Field(description="Register to start at; omit for a "
                                                            "plain read.")] = None,
                 len: Annotated[int, Field(ge=1, le=4096, description="Bytes to read.")] = 1,  # noqa: A002
                 adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CReadResult:
        """Read bytes from an I2C target, optionally starting at a register (write pointer, repeated start, read)."""
        return self._do(hw.i2c_read, addr=addr, register=register, len=len, adapter=adapter, board=board, bus=bus)

    def i2c_write(self, addr: AddrArg, bytes: ByteList,  # noqa: A002 - the Revka runtime's argument name
                  register: Annotated[int | str | None, Field(description="Register to write at; omit to "
                                                             "send `bytes` as they are.")] = None,
                  adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CWriteResult:
        """Write bytes to an I2C target (after a register number if given); refused unless the safety policy allows."""
        return self._do(hw.i2c_write, addr=addr, bytes=bytes, register=register, adapter=adapter, board=board,
                        bus=bus)

    def spi_transfer(self, bytes: ByteList,  # noqa: A002 - the Revka runtime's argument name
                     bus: BusArg = None, cs: Annotated[int, Field(ge=0, le=15)] = 0,
                     mode: Annotated[int, Field(ge=0, le=3)] = 0,
                     speed_hz: Annotated[int, Field(ge=1_000, le=100_000_000)] = 1_000_000,
                     adapter: AdapterArg = None, board: BoardArg = None) -> SpiResult:
        """Full-duplex SPI transfer: clock `bytes` out and return as many bytes read back."""
        return self._do(hw.spi_transfer, bytes=bytes, bus=bus, cs=cs, mode=mode, speed_hz=speed_hz, adapter=adapter,
                        board=board)

    def hardware_board_info(self, adapter: AdapterArg = None, board: BoardArg = None) -> BoardInfo:
        """Board facts: MCU, LEDs, buttons, bus pin groups and pin count, plus the adapter serving it."""
        from edge_agent.pins import get_board

        slot = None
        board_id = board
        if adapter or not board or any(s.board == board.lower() for s in self._rt.adapters.values()):
            slot = self._rt.slot(adapter, board)
            board_id = slot.board
        if not board_id:
            raise InvalidAddressError(f"adapter {slot.name if slot else adapter} has no board id; pass `board`")
        info = get_board(board_id)
        return BoardInfo(
            board=info.id, name=info.name, mcu=info.mcu, leds=dict(info.leds), buttons=dict(info.buttons),
            buses=_jsonable(info.buses), pin_count=len(info.pins),
            # Every pin by native name with its header positions, so an agent told "no such pin" can pick one.
            pins=[f"{p.name} ({', '.join(p.headers)})" if p.headers else p.name for p in info.pins],
            datasheet_tags=list(info.datasheet_tags), adapter=slot.describe() if slot is not None else None)

    def hardware_capabilities(self, adapter: AdapterArg = None, board: BoardArg = None) -> Capabilities:
        """What an adapter offers: I2C buses, SPI chip selects, GPIO, write policy, and its health."""
        return self._do(hw.hardware_capabilities, adapter=adapter, board=board)

    def sensor_read(self, sensor: Literal["bme280"] = "bme280", addr: AddrArg = 0x76,
                    adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> SensorReading:
        """Read a sensor through its driver: bme280 gives temperature_c, pressure_hpa, humidity_pct."""
        return self._do(hw.sensor_read, sensor=sensor, addr=addr, adapter=adapter, board=board, bus=bus)

    # --- datasheets and pins ---------------------------------------------------------------------

    def datasheet_search(self, query: QueryArg, board: BoardArg = None,
                         limit: Annotated[int | None, Field(ge=1, le=20)] = None) -> DatasheetHits:
        """Search the datasheets; returns ranked chunks with source file, board, heading, text and score."""
        return self._do(lookups.datasheet_search, query=query, board=board, limit=limit)

    def datasheet_read(self, source: Annotated[str, Field(description="File name as datasheet_list or "
                                                          "datasheet_search report it.", max_length=500)],
                       heading: Annotated[str | None, Field(description="Section heading to return only that "
                                                            "section.", max_length=500)] = None) -> DatasheetText:
        """Return the text of a datasheet file, or of one section when `heading` is given."""
        return self._do(lookups.datasheet_read, source=source, heading=heading)

    def datasheet_list(self) -> DatasheetFiles:
        """List the indexed datasheet files with their boards."""
        return self._do(lookups.datasheet_list)

    def pin_resolve(self, name: PinArg, board: BoardArg = None) -> PinRecord:
        """Resolve a pin name or alias ('red_led', 'D13', 'LD2') to the board's native pin, headers and functions."""
        return self._do(lookups.pin_resolve, name=name, board=board)

    def hardware_context(self, query: QueryArg, board: BoardArg = None) -> HardwareContext:
        """The block to put in a prompt: board pin aliases and the datasheet chunks relevant to `query`."""
        return self._do(lookups.hardware_context, query=query, board=board)

    # --- memory ----------------------------------------------------------------------------------

    def _limit(self, limit: int | None) -> int:
        cap = self._rt.settings.kumiho.memory_retrieval_limit
        return cap if limit is None else max(1, min(limit, cap))

    def _min_score(self, min_score: float | None) -> float:
        floor = self._rt.settings.memory.min_relevance_score
        return floor if min_score is None else max(min_score, floor)

    def memory_engage(self, query: QueryArg, limit: LimitArg = None, memory_types: MemoryTypes = None,
                      min_score: MinScore = None, space_path: SpacePath = None) -> EngageResult:
        """Before answering: recall what is known about `query`; returns a compact context and source_krefs."""
        self._rt.require_memory()
        return self._do(memory.memory_engage, query=query, limit=self._limit(limit), memory_types=memory_types,
                        min_score=self._min_score(min_score), space_path=space_path)

    def memory_recall(self, query: QueryArg, limit: LimitArg = None, memory_types: MemoryTypes = None,
                      min_score: MinScore = None, space_path: SpacePath = None) -> RecallResult:
        """Ranked memory entries matching `query`, each with its decayed relevance score."""
        self._rt.require_memory()
        return self._do(memory.memory_recall, query=query, limit=self._limit(limit), memory_types=memory_types,
                        min_score=self._min_score(min_score), space_path=space_path)

    def memory_store(self, content: Annotated[str, Field(min_length=1, max_length=65536)],
                     title: Annotated[str | None, Field(max_length=300)] = None,
                     memory_type: Annotated[str, Field(max_length=40)] = "summary",
                     space_path: SpacePath = None,
                     tags: Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(max_length=32)] = None,
                     importance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
                     session_id: Annotated[str | None, Field(max_length=200)] = None) -> MemoryEntry:
        """Store one memory locally (kept on the device; use memory_reflect for captures that sync upstream)."""
        self._rt.require_memory()
        return self._do(memory.memory_store, content=content, title=title, memory_type=memory_type,
                        space_path=space_path, tags=tags, importance=importance, session_id=session_id)

    def memory_reflect(self, session_id: Annotated[str, Field(min_length=1, max_length=200)],
                       response: Annotated[str, Field(max_length=65536, description="The answer just given.")] = "",
                       captures: Annotated[list[CaptureIn], Field(max_length=50)] | None = None,
                       source_krefs: Annotated[list[Annotated[str, Field(max_length=500)]] | None,
                                               Field(max_length=100)] = None,
                       space_path: SpacePath = None) -> ReflectResult:
        """After answering: record the response and captures (durably queued for Kumiho when sync is on)."""
        self._rt.require_memory()
        return self._do(memory.memory_reflect, session_id=session_id, response=response,
                        captures=[c.model_dump(exclude_none=True) for c in captures or []],
                        source_krefs=source_krefs, space_path=space_path)

    def memory_forget(self, key: Annotated[str, Field(min_length=1, max_length=500,
                                                      description="Entry key or id to forget.")],
                      space_path: SpacePath = None) -> ForgetResult:
        """Forget one memory entry by key or id."""
        self._rt.require_memory()
        return self._do(memory.memory_forget, key=key, space_path=space_path)

    def memory_export(self, space_path: SpacePath = None,
                      limit: Annotated[int, Field(ge=1, le=1000)] = 100) -> ExportResult:
        """Export memory entries (newest first) as structured records."""
        self._rt.require_memory()
        return self._do(memory.memory_export, space_path=space_path, limit=limit)

    # --- runtime ---------------------------------------------------------------------------------

    def sync_status(self) -> SyncStatus:
        """Upstream sync to Kumiho: enabled, outbox depth, last success, last error."""
        return self._do(upkeep.sync_status)

    def runtime_status(self) -> RuntimeStatus:
        """Adapters and their health, datasheet index, memory counts, sync, background jobs."""
        return self._do(upkeep.runtime_status)


#: Tool names in registration order (also the snapshot order).
TOOL_NAMES: tuple[str, ...] = (
    "gpio_read", "gpio_write", "i2c_scan", "i2c_read", "i2c_write", "spi_transfer", "hardware_board_info",
    "hardware_capabilities", "sensor_read",
    "datasheet_search", "datasheet_read", "datasheet_list", "pin_resolve", "hardware_context",
    "memory_engage", "memory_reflect", "memory_recall", "memory_store", "memory_forget", "memory_export",
    "sync_status", "runtime_status",
)

__all__ = ["HEX_BYTES", "TOOL_NAMES", "CaptureIn", "EdgeAgentError", "PinArg", "Tools"]
