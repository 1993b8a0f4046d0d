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

import dataclasses
import json
import logging
import re
import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from edge_agent.bus.base import MAX_PIN_CHARS
from edge_agent.errors import EdgeAgentError, InvalidAddressError
from edge_agent.mcp.results import (
    BoardInfo,
    Capabilities,
    DatasheetChunk,
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
    WriteRecord,
)
from edge_agent.memory.captures import KnowledgeType
from edge_agent.runtime import AdapterSlot, ComponentUnavailable, Runtime

log = logging.getLogger(__name__)

# Argument types, with the limits an agent sees in the schema ----------------------------------------

AdapterArg = Annotated[str | None, Field(
    description="Configured adapter name (see runtime_status); omit to use `board` or the first board.",
    max_length=200)]
BoardArg = Annotated[str | None, Field(
    description="Board id such as 'nucleo-f401re' or 'rpi-4b' (picks its configured adapter).",
    max_length=100)]
PinArg = Annotated[Annotated[str, Field(max_length=MAX_PIN_CHARS)] | int, Field(
    description="Pin name, number or alias: 'PA5', 'D13', 'red_led', 17.")]
AddrArg = Annotated[int | str, Field(
    description="7-bit I2C target address, 0x03-0x77; an integer or a string like '0x76'.")]
BusArg = Annotated[int | str | None, Field(
    description="Bus number or name such as 'i2c1'; omit for the adapter's first bus.")]
# Small models often write bytes the way datasheets and i2c-tools print them, so a hex string is
# accepted too, when it cannot be read another way: with 0x ("0x27", "0x018000", "0x01,0x80") or
# with separators between byte pairs ("01 80 00", "01:80"). A bare run like "27" is refused: a JSON
# integer 27 is decimal, so reading the string as hex 0x27 would send a different byte.
_PAIR = r"[0-9A-Fa-f]{2}"
_SEP = r"[\s,:;]+"
HEX_BYTES = rf"^\s*(0[xX](?:{_PAIR})+|(?:0[xX])?{_PAIR}(?:{_SEP}(?:0[xX])?{_PAIR})+)\s*$"


def _refuse_bare_digits(value: object) -> object:
    """A string of hex digits alone is ambiguous; say both readings so the caller can pick one."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9A-Fa-f]+", text := value.strip()):
        return value
    forms = [f"'0x{text}'"]
    if len(text) > 2 and len(text) % 2 == 0:
        forms.append(repr(" ".join(text[i:i + 2] for i in range(0, len(text), 2))))
    hex_reading = (f"as hex bytes [{', '.join(f'0x{b:02X}' for b in bytes.fromhex(text))}]"
                   if len(text) % 2 == 0 else "")
    if not text.isdigit():
        raise ValueError(f"{value!r} needs 0x or separators between byte pairs to be read as hex"
                         + (f" ({hex_reading})" if hex_reading else " (it has an odd number of digits)")
                         + f"; write {' or '.join(forms)}, or give the bytes as a list of integers")
    number = int(text)
    as_number = f"as the number {number}" + (f" (byte 0x{number:02X})" if number < 256 else " (not one byte)")
    raise ValueError(f"{value!r} is ambiguous: {hex_reading + ' or ' if hex_reading else ''}{as_number}; "
                     f"write hex as {' or '.join(forms)}, or the number as the list [{number}]"
                     if number < 256 else
                     f"{value!r} is ambiguous: {hex_reading + ' or ' if hex_reading else ''}{as_number}; "
                     f"write hex as {' or '.join(forms)}, or give the bytes as a list of integers")


ByteList = Annotated[
    Annotated[list[Annotated[int, Field(ge=0, le=255)]], Field(min_length=1, max_length=4096)]
    | Annotated[str, Field(pattern=HEX_BYTES, max_length=4096 * 5), BeforeValidator(_refuse_bare_digits)],
    Field(description="Bytes as integers 0-255, or hex with 0x or separators: \"0x27\", \"01 80 00\".")]
QueryArg = Annotated[str, Field(description="What to look for, in plain words.", min_length=1, max_length=2000)]
LimitArg = Annotated[int | None, Field(
    description="Maximum results; capped by [kumiho] memory_retrieval_limit.", ge=1, le=100)]
MemoryTypes = Annotated[list[str] | None, Field(
    description="Only these memory types (decision, preference, fact, correction, architecture, "
    "implementation, synthesis, reflection, summary, skill, or an event type).", max_length=32)]
MinScore = Annotated[float | None, Field(
    description="Minimum relevance 0-1; never below [memory] min_relevance_score.", ge=0.0, le=1.0)]
SpacePath = Annotated[str | None, Field(
    description="Memory space (namespace), e.g. 'Devices/bench-1'; omit for the default.", max_length=300)]


class CaptureIn(BaseModel):
    """One capture for memory_reflect, in Kumiho's reflect shape."""

    model_config = ConfigDict(extra="forbid")

    type: KnowledgeType = Field(description="Kumiho memory type of this capture.")
    title: str = Field(description="Short title.", min_length=1, max_length=300)
    content: str = Field(description="What to remember, self-contained.", min_length=1, max_length=65536)
    tags: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list, max_length=32)
    space_hint: str = Field("", description="Space to file it under (slugified upstream).", max_length=300)
    importance: float = Field(0.5, ge=0.0, le=1.0, description="0-1; low-importance captures may be "
                              "refused when the outbox is full.")
    revises: str | None = Field(None, description="kref of the memory this capture supersedes.", max_length=500)
    event_date: str | None = Field(None, description="When it happened: YYYY, YYYY-MM or YYYY-MM-DD.",
                                   max_length=10)
    origin: str | None = Field(None, description="Where the knowledge came from.", max_length=300)
    decision_state: str | None = Field(None, description="For decisions: e.g. proposed, accepted.", max_length=40)


def _parse_int(value: int | str, what: str, adapter: str = "") -> int:
    if isinstance(value, bool):
        raise InvalidAddressError(f"{what} must be a number, not {value!r}", adapter=adapter)
    if isinstance(value, int):
        return value
    try:
        return int(value.strip(), 0)
    except ValueError:
        raise InvalidAddressError(f"{what} {value!r} is not a number; use decimal or 0x-hex like '0x76'",
                                  adapter=adapter) from None


def _bytes(value: list[int] | str) -> list[int]:
    """Tool byte arguments as a list of ints (a hex string has already matched HEX_BYTES)."""
    if isinstance(value, list):
        return list(value)
    digits = "".join(part[2:] if part[:2] in ("0x", "0X") else part
                     for part in re.split(_SEP, value.strip()) if part)
    return list(bytes.fromhex(digits))


def _address(address: int) -> dict[str, Any]:
    """An I2C address as an integer (for programs) and a hex string (for people)."""
    return {"addr": address, "addr_hex": f"0x{address:02X}"}


def _location(address: int, register: int | None) -> dict[str, Any]:
    """An I2C address and register (None: no register) as integers and hex strings."""
    return {**_address(address), "register": register,
            "register_hex": None if register is None else f"0x{register:02X}"}


def _hex(data: bytes) -> str:
    return data.hex(" ") if data else ""


def _jsonable(obj: Any) -> Any:
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict) and not isinstance(obj, type):
        return _jsonable(to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, int | float | str | bool) or obj is None:
        return obj
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return str(obj)


class Tools:
    """Every MCP tool, bound to one runtime; each public method is one tool."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    # --- hardware --------------------------------------------------------------------------------

    def _record_write(self, tool: str, slot: AdapterSlot, title: str, args: dict[str, Any]) -> WriteRecord | None:
        """With [server] record_hardware_writes, keep the write as a command_execution capture."""
        store = self._rt.memory
        if not self._rt.settings.server.record_hardware_writes or store is None:
            return None
        from edge_agent.memory import Capture

        cap = Capture(
            type="command_execution", title=title, importance=0.2,
            content=f"{tool} on adapter {slot.name} ({slot.url}, board {slot.board}): {json.dumps(args)}",
            tags=("mcp", "hardware-write", tool), metadata={"tool": tool, "adapter": slot.name,
                                                            "adapter_url": slot.url, "board": slot.board or "",
                                                            "args": json.dumps(args)})
        try:
            stored = store.record_capture(cap)
        except EdgeAgentError as exc:  # the write happened; say the record did not, do not fail the call
            log.warning("%s: the write succeeded but its capture was not stored: %s", tool, exc)
            return WriteRecord(stored=False, error=str(exc))
        return WriteRecord(stored=True, capture_id=stored.id, entry_id=stored.entry_id)

    def gpio_read(self, pin: PinArg, adapter: AdapterArg = None, board: BoardArg = None) -> GpioResult:
        """Read the level (0 or 1) of a GPIO pin; pins accept names, numbers and aliases like 'red_led'."""
        with self._rt.hardware(adapter, board) as slot:
            name, _ = slot.require().resolve_pin(pin)
            value = slot.require().gpio_read(pin)
        return GpioResult(adapter=slot.name, board=slot.board, pin=name, requested=pin, value=value)

    def gpio_write(self, pin: PinArg, value: Annotated[int, Field(ge=0, le=1, description="0 (low) or 1 (high).")],
                   adapter: AdapterArg = None, board: BoardArg = None) -> GpioResult:
        """Drive a GPIO pin low (0) or high (1); the [hardware.safety] policy may refuse and says how to allow it."""
        with self._rt.hardware(adapter, board) as slot:
            name, _ = slot.require().resolve_pin(pin)
            slot.require().gpio_write(pin, value)
        return GpioResult(adapter=slot.name, board=slot.board, pin=name, requested=pin, value=value,
                          capture=self._record_write("gpio_write", slot, f"gpio_write {name}={value} on {slot.name}",
                                                     {"pin": name, "value": value}))

    def i2c_scan(self, adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CScanResult:
        """List the 7-bit I2C addresses that acknowledge on a bus (driver-owned ones as busy, unprobed)."""
        with self._rt.hardware(adapter, board) as slot:
            i2c = slot.require().i2c(bus)
            report = i2c.scan_report()
        return I2CScanResult(adapter=slot.name, bus=i2c.bus, addresses=report.found,
                             addresses_hex=[f"0x{a:02X}" for a in report.found], busy=report.busy,
                             busy_hex=[f"0x{a:02X}" for a in report.busy])

    def i2c_read(self, addr: AddrArg,
                 register: Annotated[int | str | None, Field(description="Register to start at; omit for a "
                                                            "plain read.")] = None,
                 len: Annotated[int, Field(ge=1, le=4096, description="Bytes to read.")] = 1,  # noqa: A002
                 adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CReadResult:
        """Read bytes from an I2C target, optionally starting at a register (write pointer, repeated start, read)."""
        with self._rt.hardware(adapter, board) as slot:
            address = _parse_int(addr, "addr", slot.url)
            reg = None if register is None else _parse_int(register, "register", slot.url)
            i2c = slot.require().i2c(bus)
            data = i2c.read(address, len) if reg is None else i2c.read_register(address, reg, len)
        return I2CReadResult(adapter=slot.name, bus=i2c.bus, **_location(address, reg), data=list(data),
                             hex=_hex(data))

    def i2c_write(self, addr: AddrArg, bytes: ByteList,  # noqa: A002 - the Revka runtime's argument name
                  register: Annotated[int | str | None, Field(description="Register to write at; omit to "
                                                             "send `bytes` as they are.")] = None,
                  adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> I2CWriteResult:
        """Write bytes to an I2C target (after a register number if given); refused unless the safety policy allows."""
        bytes = _bytes(bytes)  # noqa: A001
        with self._rt.hardware(adapter, board) as slot:
            address = _parse_int(addr, "addr", slot.url)
            reg = None if register is None else _parse_int(register, "register", slot.url)
            i2c = slot.require().i2c(bus)
            if reg is None:
                i2c.write(address, list(bytes))
            else:
                i2c.write_register(address, reg, list(bytes))
        return I2CWriteResult(
            adapter=slot.name, bus=i2c.bus, **_location(address, reg), written=len(bytes),
            capture=self._record_write("i2c_write", slot, f"i2c_write 0x{address:02X} {len(bytes)}B on {slot.name}",
                                       {"bus": i2c.bus, "addr": address, "register": reg, "bytes": list(bytes)}))

    def spi_transfer(self, bytes: ByteList,  # noqa: A002 - the Revka runtime's argument name
                     bus: BusArg = None, cs: Annotated[int, Field(ge=0, le=15)] = 0,
                     mode: Annotated[int, Field(ge=0, le=3)] = 0,
                     speed_hz: Annotated[int, Field(ge=1_000, le=100_000_000)] = 1_000_000,
                     adapter: AdapterArg = None, board: BoardArg = None) -> SpiResult:
        """Full-duplex SPI transfer: clock `bytes` out and return as many bytes read back."""
        bytes = _bytes(bytes)  # noqa: A001
        with self._rt.hardware(adapter, board) as slot:
            dev = slot.require().spi(bus, cs, mode=mode, speed_hz=speed_hz)
            rx = dev.transfer(list(bytes))
        return SpiResult(
            adapter=slot.name, cs=cs, mode=mode, rx=list(rx), hex=_hex(rx),
            capture=self._record_write("spi_transfer", slot, f"spi_transfer {len(bytes)} bytes on {slot.name} cs {cs}",
                                       {"bus": bus, "cs": cs, "mode": mode, "bytes": list(bytes)[:64]}))

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
        with self._rt.hardware(adapter, board) as slot:
            held = slot.require()
            caps = _jsonable(held.capabilities())
            caps["health"] = _jsonable(held.health())
        return Capabilities.model_validate(caps)

    def sensor_read(self, sensor: Literal["bme280"] = "bme280", addr: AddrArg = 0x76,
                    adapter: AdapterArg = None, board: BoardArg = None, bus: BusArg = None) -> SensorReading:
        """Read a sensor through its driver: bme280 gives temperature_c, pressure_hpa, humidity_pct."""
        from edge_agent.drivers.bme280 import BME280

        with self._rt.hardware(adapter, board) as slot:
            address = _parse_int(addr, "addr", slot.url)
            reading = BME280(slot.require().i2c(bus), address=address).read()
        return SensorReading(adapter=slot.name, sensor=sensor, **_address(address), at=time.time(),
                             **_jsonable(reading))

    # --- datasheets and pins ---------------------------------------------------------------------

    def _boards_for(self, board: str | None) -> list[str]:
        if board:
            return [board.strip().lower()]
        return sorted({s.board for s in self._rt.adapters.values() if s.board})

    def datasheet_search(self, query: QueryArg, board: BoardArg = None,
                         limit: Annotated[int | None, Field(ge=1, le=20)] = None) -> DatasheetHits:
        """Search the datasheets; returns ranked chunks with source file, board, heading, text and score."""
        rag = self._rt.require_rag()
        boards = [board.strip().lower()] if board else []
        chunks = rag.search(query, boards=boards, limit=limit)
        return DatasheetHits(query=query, results=[DatasheetChunk.model_validate(_jsonable(c)) for c in chunks])

    def datasheet_read(self, source: Annotated[str, Field(description="File name as datasheet_list or "
                                                          "datasheet_search report it.", max_length=500)],
                       heading: Annotated[str | None, Field(description="Section heading to return only that "
                                                            "section.", max_length=500)] = None) -> DatasheetText:
        """Return the text of a datasheet file, or of one section when `heading` is given."""
        text = self._rt.require_rag().read(source, heading)
        return DatasheetText(source=source, heading=heading, text=text)

    def datasheet_list(self) -> DatasheetFiles:
        """List the indexed datasheet files with their boards."""
        rag = self._rt.require_rag()
        return DatasheetFiles(files=_jsonable(rag.files()))

    def pin_resolve(self, name: PinArg, board: BoardArg = None) -> PinRecord:
        """Resolve a pin name or alias ('red_led', 'D13', 'LD2') to the board's native pin, headers and functions."""
        boards = self._boards_for(board)
        if not boards:
            raise ComponentUnavailable("pin resolution", "no board given and none configured; pass `board`")
        pin = self._rt.pins.resolve(boards[0], name)
        return PinRecord.model_validate(_jsonable(pin))

    def hardware_context(self, query: QueryArg, board: BoardArg = None) -> HardwareContext:
        """The block to put in a prompt: board pin aliases and the datasheet chunks relevant to `query`."""
        rag = self._rt.require_rag()
        boards = self._boards_for(board)
        return HardwareContext(boards=boards, context=rag.context(query, boards, self._rt.pins))

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
        store = self._rt.require_memory()
        result = store.engage(query, limit=self._limit(limit), categories=memory_types,
                              namespaces=[space_path] if space_path else None, min_score=self._min_score(min_score))
        data = _jsonable(result)
        data.setdefault("source_krefs", data.get("source_refs", []))
        return EngageResult.model_validate(data)

    def memory_recall(self, query: QueryArg, limit: LimitArg = None, memory_types: MemoryTypes = None,
                      min_score: MinScore = None, space_path: SpacePath = None) -> RecallResult:
        """Ranked memory entries matching `query`, each with its decayed relevance score."""
        store = self._rt.require_memory()
        entries = store.recall(query, limit=self._limit(limit), categories=memory_types,
                               namespace=space_path, min_score=self._min_score(min_score))
        return RecallResult(query=query, results=[_jsonable(e) for e in entries])

    def memory_store(self, content: Annotated[str, Field(min_length=1, max_length=65536)],
                     title: Annotated[str | None, Field(max_length=300)] = None,
                     memory_type: Annotated[str, Field(max_length=40)] = "summary",
                     space_path: SpacePath = None,
                     tags: Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(max_length=32)] = None,
                     importance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
                     session_id: Annotated[str | None, Field(max_length=200)] = None) -> MemoryEntry:
        """Store one memory locally (kept on the device; use memory_reflect for captures that sync upstream)."""
        store = self._rt.require_memory()
        key = title or content[:80]
        entry = store.store(key, content, category=memory_type, namespace=space_path, session_id=session_id,
                            importance=importance, title=title or "", metadata={"tags": list(tags)} if tags else None)
        return MemoryEntry.model_validate(_jsonable(entry))

    def memory_reflect(self, session_id: Annotated[str, Field(min_length=1, max_length=200)],
                       response: Annotated[str, Field(max_length=65536, description="The answer just given.")] = "",
                       captures: Annotated[list[CaptureIn], Field(max_length=50)] | None = None,
                       source_krefs: Annotated[list[Annotated[str, Field(max_length=500)]] | None,
                                               Field(max_length=100)] = None,
                       space_path: SpacePath = None) -> ReflectResult:
        """After answering: record the response and captures (durably queued for Kumiho when sync is on)."""
        store = self._rt.require_memory()
        if space_path and space_path.strip() in self._rt.settings.memory.policy.read_only_namespaces:
            # Refused before anything is kept, not filed in the default space instead.
            from edge_agent.memory import ReadOnlyNamespaceError

            raise ReadOnlyNamespaceError(space_path.strip(), "memory_reflect")
        # The captures are kept in the space's namespace locally and filed under it upstream.
        where = {"namespace": space_path.strip()} if space_path else {}
        caps = [{**c.model_dump(exclude_none=True), **where, "space_hint": c.space_hint or (space_path or "")}
                for c in (captures or [])]
        result = store.reflect(session_id, response, captures=caps, source_refs=list(source_krefs or []))
        return ReflectResult.model_validate(_jsonable(result))

    def memory_forget(self, key: Annotated[str, Field(min_length=1, max_length=500,
                                                      description="Entry key or id to forget.")],
                      space_path: SpacePath = None) -> ForgetResult:
        """Forget one memory entry by key or id."""
        from edge_agent.memory import EntryNotFoundError

        store = self._rt.require_memory()
        count = store.forget(key, namespace=space_path)
        if not count and store.forget_id(key):
            count = 1
        if not count:
            raise EntryNotFoundError(key, space_path or store.default_namespace)
        return ForgetResult(forgotten=count, key=key)

    def memory_export(self, space_path: SpacePath = None,
                      limit: Annotated[int, Field(ge=1, le=1000)] = 100) -> ExportResult:
        """Export memory entries (newest first) as structured records."""
        store = self._rt.require_memory()
        entries = list(store.export(namespace=space_path, include_superseded=False))[-limit:][::-1]
        return ExportResult(entries=[_jsonable(e) for e in entries], count=len(entries))

    # --- runtime ---------------------------------------------------------------------------------

    def sync_status(self) -> SyncStatus:
        """Upstream sync to Kumiho: enabled, outbox depth, last success, last error."""
        return SyncStatus.model_validate(_jsonable(self._rt.sync_status()))

    def runtime_status(self) -> RuntimeStatus:
        """Adapters and their health, datasheet index, memory counts, sync, background jobs."""
        return RuntimeStatus.model_validate(_jsonable(self._rt.status()))


#: Tool names in registration order (also the snapshot order).
TOOL_NAMES: tuple[str, ...] = (
    "gpio_read", "gpio_write", "i2c_scan", "i2c_read", "i2c_write", "spi_transfer", "hardware_board_info",
    "hardware_capabilities", "sensor_read",
    "datasheet_search", "datasheet_read", "datasheet_list", "pin_resolve", "hardware_context",
    "memory_engage", "memory_reflect", "memory_recall", "memory_store", "memory_forget", "memory_export",
    "sync_status", "runtime_status",
)

__all__ = ["TOOL_NAMES", "CaptureIn", "EdgeAgentError", "Tools"]
