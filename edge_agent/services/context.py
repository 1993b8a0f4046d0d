"""The agent's turn context: the hardware block of a prompt, or what the device can say with no model.

An action of its own, apart from the lookups, so that a turn without a daemon (which asks for it on
every message, response-cache hits included) loads neither the pin tools nor the bus layer.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from edge_agent.errors import ComponentUnavailable
from edge_agent.services.core import ActionInput, Resources, action
from edge_agent.services.results import JSON, AgentContext
from edge_agent.services.textargs import MessageArg

BoardsArg = Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(
    description="Boards whose documents and pin names to use.", max_length=32)]


class AgentContextIn(ActionInput):
    query: MessageArg
    boards: BoardsArg = None
    offline: bool = Field(False, description="The pins the query names and the single best chunk instead.")


@action("agent_context", AgentContextIn, AgentContext)
def agent_context(res: Resources, a: AgentContextIn) -> AgentContext:
    """An agent turn's hardware context for ``query``, scoped to ``boards``: the prompt block (pin aliases and
    datasheet chunks) and the pin matches its pin block was written from, as records; with ``offline``, the
    pins the query names and the single best chunk, what the device can answer with no model. Empty when
    there is no datasheet index."""
    boards = [b.strip().lower() for b in a.boards or []]
    try:
        with res.datasheets() as rag:
            if not a.offline:
                if not boards:
                    return AgentContext(hardware="", aliases=[])
                text, matches = rag.context_and_pins(a.query, boards)
                return AgentContext(hardware=text, aliases=[m.record() for m in matches])
            chunks = rag.search(a.query, boards, limit=1)
            chunk: JSON | None = None
            if chunks:
                chunk = {"source": chunks[0].source, "heading": chunks[0].heading, "text": chunks[0].text}
            return AgentContext(pins=rag.pin_context(a.query, boards) if boards else "", chunk=chunk, index=True)
    except ComponentUnavailable:  # answered without an index
        if not a.offline:
            return AgentContext(hardware="", aliases=[])
        return AgentContext(pins="", chunk=None, index=False)
