"""The argument types of the actions that drive no hardware: queries, memory filters, captures.

Kept apart from :mod:`.args` (whose pin type reads the bus layer's limits) so that what the agent asks
on every turn without a daemon (engage memory, the response cache, the hardware context) loads
neither the bus layer nor the hardware actions.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from edge_agent.memory.captures import KnowledgeType

QueryArg = Annotated[str, Field(description="What to look for, in plain words.", min_length=1, max_length=2000)]
#: A user's whole message as the query of a turn's context (the agent's own calls; a tool's query is QueryArg).
MessageArg = Annotated[str, Field(description="The message a turn answers.", max_length=1_000_000)]
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
    category: str | None = Field(None, description="Local memory category (e.g. conversation); omit for the "
                                 "type's own.", max_length=40)
