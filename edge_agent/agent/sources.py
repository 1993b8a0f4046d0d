"""Where a turn's context comes from: the stores in this process, or the daemon that owns them.

The daemon is the one owner of the state directory's databases. While it serves the state
directory, the agent engages and reflects memory, reads and fills the response cache, and asks for
the hardware context (pin aliases and datasheet chunks) through its socket, so the agent process
opens no database of the state directory and builds no index. With no daemon the same calls go to a
memory store and a datasheet index opened here. Both sides answer with the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edge_agent.config import Settings


class LocalHardware:
    """Hardware context from a datasheet index opened in this process."""

    def __init__(self, rag: Any) -> None:
        self.rag = rag

    def context(self, query: str, boards: Sequence[str]) -> str:
        from edge_agent.hub.ops import hardware_context

        return str(hardware_context(self.rag, query, boards, offline=False)["hardware"])

    def offline(self, query: str, boards: Sequence[str]) -> dict[str, Any]:
        from edge_agent.hub.ops import hardware_context

        return hardware_context(self.rag, query, boards, offline=True)

    def close(self) -> None:
        self.rag.close()


class DaemonHardware:
    """Hardware context from the daemon's datasheet index (op ``agent_context``)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def context(self, query: str, boards: Sequence[str]) -> str:
        return str(self.client.op("agent_context", {"query": query, "boards": list(boards)})["hardware"])

    def offline(self, query: str, boards: Sequence[str]) -> dict[str, Any]:
        return dict(self.client.op("agent_context", {"query": query, "boards": list(boards), "offline": True}))

    def close(self) -> None:
        pass


class DaemonCache:
    """The daemon's response cache (ops ``cache_get`` / ``cache_put``)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def get(self, model: str, system_prompt: str, user_prompt: str) -> str | None:
        got = self.client.op("cache_get", {"model": model, "system": system_prompt, "prompt": user_prompt})
        response = got.get("response")
        return None if response is None else str(response)

    def put(self, model: str, system_prompt: str, user_prompt: str, response: str, *,
            tokens: int | None = None) -> str:
        return str(self.client.op("cache_put", {"model": model, "system": system_prompt, "prompt": user_prompt,
                                                "response": response, "tokens": tokens})["key"])


class DaemonMemory:
    """The daemon's memory store, as far as a turn uses it: engage, reflect and the response cache."""

    def __init__(self, client: Any, settings: Settings) -> None:
        self.client, self.settings = client, settings

    def engage(self, query: str, limit: int = 5, *, min_score: float = 0,
               exclude_ids: Sequence[str] = ()) -> dict[str, Any]:
        return dict(self.client.op("memory_engage", {"query": query, "limit": limit, "min_score": min_score,
                                                     "exclude_ids": list(exclude_ids)}))

    def reflect(self, session_id: str, response: str, captures: Sequence[dict[str, Any]] = (),
                source_refs: Sequence[str] = ()) -> dict[str, Any]:
        return dict(self.client.op("memory_reflect", {"session_id": session_id, "response": response,
                                                      "captures": list(captures),
                                                      "source_refs": list(source_refs)}))

    @property
    def response_cache(self) -> DaemonCache | None:
        return DaemonCache(self.client) if self.settings.memory.response_cache_enabled else None

    def close(self) -> None:
        pass
