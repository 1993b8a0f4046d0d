"""What each tool returns, as pydantic models: the MCP server publishes their JSON schemas as the tools'
``outputSchema`` and sends their JSON as ``structuredContent``.

Fields named here are the ones an agent relies on; a result that passes a deeper record through
(an adapter's capabilities, a memory entry, the runtime status) also keeps that record's other keys
(``extra="allow"``). Absent optional parts (``capture`` when writes are not recorded, ``adapter``
for a board that is not configured) are left out of the JSON rather than sent as null.

A result also reads like the JSON a client receives (``result["pin"]``, ``"capture" in result``),
so in-process callers and MCP clients see one shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from edge_agent.jsontypes import JsonValue

if TYPE_CHECKING:
    #: A JSON object: what the type checker holds callers to.
    JSON = dict[str, JsonValue]
else:
    # At run time pydantic takes these fields as open JSON objects, validated and published as they have
    # always been (schema ``{"type": "object", "additionalProperties": true}``, the tool schemas clients hold).
    JSON = dict[str, Any]


class ToolResult(BaseModel):
    """Base of every tool result."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)
    #: Optional fields left out of the JSON when they are None.
    omit_if_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _without_absent_parts(self, handler: SerializerFunctionWrapHandler) -> JSON:
        data: JSON = handler(self)
        for key in self.omit_if_none:
            if data.get(key, 0) is None:
                del data[key]
        return data

    def as_json(self) -> JSON:
        """The JSON object a client receives."""
        return self.model_dump(mode="json")

    def __getitem__(self, key: str) -> JsonValue:
        return self.as_json()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.as_json()

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        """``result[key]``, or ``default`` when the JSON has no such key."""
        return self.as_json().get(key, default)


class _Open(ToolResult):
    """A result that passes a deeper record through: its other keys are kept."""

    model_config = ConfigDict(extra="allow")  # pydantic merges this over ToolResult's config


# --- hardware -------------------------------------------------------------------------------------


class WriteRecord(ToolResult):
    """With ``[server] record_hardware_writes``: whether the write was kept as a capture."""

    omit_if_none = frozenset({"capture_id", "entry_id", "error"})
    stored: bool
    capture_id: str | None = None
    entry_id: str | None = None
    error: str | None = Field(None, description="Why the capture was not stored (the write itself happened).")


class GpioResult(ToolResult):
    omit_if_none = frozenset({"capture"})
    adapter: str
    board: str | None
    pin: str = Field(description="The board's native pin name the request resolved to.")
    requested: str | int = Field(description="The pin as the request named it.")
    value: int = Field(description="Level read or written: 0 or 1.")
    capture: WriteRecord | None = None


class I2CScanResult(ToolResult):
    adapter: str
    bus: int
    addresses: list[int] = Field(description="7-bit addresses that acknowledged.")
    addresses_hex: list[str]
    busy: list[int] = Field(description="Addresses a kernel driver owns (i2cdetect's UU); not probed.")
    busy_hex: list[str]


class _I2CLocation(ToolResult):
    adapter: str
    bus: int
    addr: int = Field(description="7-bit target address.")
    addr_hex: str
    # Python name register_: a field named register would clash with the model class's ABCMeta.register.
    register_: int | None = Field(alias="register", description="Register number; null for a plain read or write.")
    register_hex: str | None


class I2CReadResult(_I2CLocation):
    data: list[int] = Field(description="Bytes read, 0-255 each.")
    hex: str = Field(description="The same bytes as hex pairs.")


class I2CWriteResult(_I2CLocation):
    omit_if_none = frozenset({"capture"})
    written: int = Field(description="Bytes written.")
    capture: WriteRecord | None = None


class SpiResult(ToolResult):
    omit_if_none = frozenset({"capture"})
    adapter: str
    cs: int
    mode: int
    rx: list[int] = Field(description="Bytes clocked in, as many as were sent.")
    hex: str
    capture: WriteRecord | None = None


class BoardInfo(ToolResult):
    omit_if_none = frozenset({"adapter"})
    board: str
    name: str
    mcu: str
    leds: dict[str, str]
    buttons: dict[str, str]
    buses: JSON = Field(description="Bus name -> its signal pins.")
    pin_count: int
    pins: list[str] = Field(description="Every pin by native name, with its header positions.")
    datasheet_tags: list[str]
    adapter: JSON | None = Field(None, description="The configured adapter serving the board, with its health.")


class Capabilities(_Open):
    """What an adapter offers (keys depend on the backend) and its health."""

    health: JSON


class SensorReading(ToolResult):
    adapter: str
    sensor: str
    addr: int
    addr_hex: str
    at: float = Field(description="Unix time of the sample.")
    temperature_c: float
    pressure_hpa: float
    humidity_pct: float


# --- datasheets and pins --------------------------------------------------------------------------


class DatasheetChunk(_Open):
    source: str = Field(description="File name, as datasheet_read takes it.")
    board: str | None
    heading: str
    text: str
    score: float


class DatasheetHits(ToolResult):
    query: str
    read_as: str | None = Field(default=None, description="The question as searched, when a word of it no "
                                "datasheet holds was read as one they do (a misspelling: 'adress' as 'address').")
    results: list[DatasheetChunk]


class DatasheetText(ToolResult):
    source: str
    heading: str | None
    text: str


class DatasheetFiles(ToolResult):
    files: list[JSON] = Field(description="One record per indexed file: source, board, kind, size, chunks.")


class PinRecord(_Open):
    """A pin as the pin index resolved it. A pin of a board known only from datasheets also carries
    `also_named`: the other names those datasheets give it (names, not functions); other pins have no such key.
    An answer to a name that a function table or the board file also lists on other pins carries `notes` saying
    where ("PWM0 is also available on GPIO18 (...)"); other answers have no such key."""

    board: str
    name: str = Field(description="The board's native pin name.")
    headers: list[str]
    functions: list[str]


class HardwareContext(ToolResult):
    boards: list[str]
    context: str = Field(description="Pin aliases and datasheet excerpts, ready for a prompt.")


# --- memory ---------------------------------------------------------------------------------------


class MemoryEntry(_Open):
    id: str
    key: str
    content: str
    namespace: str


class EngageResult(_Open):
    context: str = Field(description="Compact context to put before answering.")
    results: list[JSON]
    source_krefs: list[str] = Field(description="Pass these to memory_reflect after answering.")


class RecallResult(ToolResult):
    omit_if_none = frozenset({"workspace"})
    query: str
    results: list[JSON] = Field(description="Entries, best first, each with its decayed score.")
    workspace: str | None = Field(None, description="The workspace searched (entries from others name theirs).")


class ReflectResult(_Open):
    session_id: str
    stored: int = Field(description="Captures newly stored (identical content is stored once).")
    captures: list[JSON]
    source_refs: list[str]


class ForgetResult(ToolResult):
    forgotten: int
    key: str


class ExportResult(ToolResult):
    entries: list[JSON]
    count: int


class ExportFile(ToolResult):
    text: str = Field(description="JSON Lines, one entry per line, oldest first.")
    count: int


class MemoryEntries(ToolResult):
    entries: list[JSON] = Field(description="Entries, newest first.")


class MemoryAudit(ToolResult):
    rows: list[JSON] = Field(description="Audit rows, newest first.")


class MemoryReport(_Open):
    """A report of the store passed through (stats, hygiene): its keys are the store's."""


class MemoryHealth(_Open):
    ok: bool


class ImportResult(_Open):
    """Counts of what the import did (its keys are the store's)."""


class ProvenanceResult(_Open):
    """An entry's sources and derivations (its keys are the store's)."""


class SnapshotResult(ToolResult):
    snapshot: str = Field(description="Path of the backup file written.")


class CacheStats(_Open):
    enabled: bool


class CacheResponse(ToolResult):
    response: str | None


class CacheKey(ToolResult):
    key: str


class CacheCleared(ToolResult):
    cleared: int


# --- runtime --------------------------------------------------------------------------------------


class SyncStatus(_Open):
    enabled: bool
    running: bool = Field(description="Whether a sync worker runs in the daemon now.")
    outbox_depth: int = Field(0, description="Captures queued or in flight.")


class SyncNow(ToolResult):
    enabled: bool
    synced: int
    dead_letters: int


class SyncRetried(ToolResult):
    moved: int


class WatchList(ToolResult):
    watches: list[JSON]


class WatchRun(ToolResult):
    watch: str
    evaluated: bool
    stored: bool
    capture: JSON | None
    status: JSON
    window: int


class BridgePing(ToolResult):
    url: str
    protocol: int | str | None
    board: str | None
    firmware: int | str | None
    rtt_ms: list[float]


class BridgeCapabilities(_Open):
    url: str
    board: str | None


class AgentContext(ToolResult):
    """An agent turn's context: ``hardware`` (the prompt block) and ``aliases`` (the pin matches its pin block
    was written from: board, alias, pin, detail), or offline ``pins``, ``chunk`` and ``index``."""

    omit_if_none = frozenset({"hardware", "aliases", "pins", "chunk", "index"})
    hardware: str | None = None
    aliases: list[JSON] | None = None
    pins: str | None = None
    chunk: JSON | None = None
    index: bool | None = None


class RuntimeStatus(_Open):
    """The runtime's report, as `edge-agent status --json` prints it and the runtime_status tool returns it:
    version, adapters with their health, components, watches, memory counts, sync. ``running`` says whether
    a live runtime answered (the daemon, or the MCP server's own) or the report was read from the files;
    ``daemon`` is the answering process's record (pid, MCP url, socket, time written)."""

    running: bool
    daemon: JSON
    adapters: list[JSON]
    components: JSON


__all__ = [
    "JSON", "AgentContext", "BoardInfo", "BridgeCapabilities", "BridgePing", "CacheCleared", "CacheKey",
    "CacheResponse", "CacheStats", "Capabilities", "DatasheetChunk", "DatasheetFiles",
    "DatasheetHits", "DatasheetText", "EngageResult", "ExportFile", "ExportResult", "ForgetResult", "GpioResult",
    "HardwareContext", "I2CReadResult", "I2CScanResult", "I2CWriteResult", "ImportResult", "MemoryAudit",
    "MemoryEntries", "MemoryEntry", "MemoryHealth", "MemoryReport", "PinRecord", "ProvenanceResult", "RecallResult",
    "ReflectResult", "RuntimeStatus", "SensorReading", "SnapshotResult", "SpiResult", "SyncNow",
    "SyncRetried", "SyncStatus", "ToolResult", "WatchList", "WatchRun", "WriteRecord",
]
