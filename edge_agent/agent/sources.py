"""Where a turn's context comes from: the services of the state directory (``edge_agent.hub.connect``).

The daemon is the one owner of the state directory's databases. While it serves the state directory,
the agent engages and reflects memory, reads and fills the response cache, and asks for the hardware
context (pin aliases and datasheet chunks) through its socket, so the agent process opens no database
of the state directory and builds no index. With no daemon the same calls run in this process, on a
store and an index opened at the first call and kept until the agent closes. Which of the two is
decided once, by ``connect``; the classes here only name the calls a turn makes.
"""

from __future__ import annotations

from collections.abc import Sequence

from edge_agent.agent.ports import Hardware, pin_facts
from edge_agent.config import Settings
from edge_agent.hub.connect import Services, json_object
from edge_agent.jsontypes import JsonObject

JSON = JsonObject


def _call(services: Services, name: str, args: JsonObject) -> JsonObject:
    return json_object(services.call(name, args), name)


class ServiceHardware:
    """Hardware context from the state directory's datasheet index (action ``agent_context``)."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def context(self, query: str, boards: Sequence[str]) -> Hardware:
        got = _call(self.services, "agent_context", {"query": query, "boards": list(boards)})
        return Hardware(str(got.get("hardware") or ""), pin_facts(got))

    def offline(self, query: str, boards: Sequence[str]) -> JSON:
        return _call(self.services, "agent_context", {"query": query, "boards": list(boards), "offline": True})

    def close(self) -> None:
        pass  # the services belong to whoever connected


class ServiceCache:
    """The state directory's response cache (actions ``cache_get`` / ``cache_put``)."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def get(self, model: str, system_prompt: str, user_prompt: str) -> str | None:
        got = _call(self.services, "cache_get", {"model": model, "system": system_prompt, "prompt": user_prompt})
        response = got.get("response")
        return None if response is None else str(response)

    def put(self, model: str, system_prompt: str, user_prompt: str, response: str, *,
            tokens: int | None = None) -> str:
        return str(_call(self.services, "cache_put", {"model": model, "system": system_prompt, "prompt": user_prompt,
                                                    "response": response, "tokens": tokens})["key"])


class ServiceMemory:
    """The state directory's memory store, as far as a turn uses it: engage, reflect and the response cache."""

    def __init__(self, services: Services, settings: Settings) -> None:
        self.services, self.settings = services, settings

    def engage(self, query: str, limit: int = 5, *, min_score: float = 0,
               exclude_ids: Sequence[str] = ()) -> JSON:
        return _call(self.services, "memory_engage", {"query": query, "limit": limit, "min_score": min_score,
                                                         "exclude_ids": list(exclude_ids)})

    def reflect(self, session_id: str, response: str, captures: Sequence[JSON] = (),
                source_refs: Sequence[str] = ()) -> JSON:
        return _call(self.services, "memory_reflect", {"session_id": session_id, "response": response,
                                                          "captures": list(captures),
                                                          "source_krefs": list(source_refs)})

    @property
    def response_cache(self) -> ServiceCache | None:
        return ServiceCache(self.services) if self.settings.memory.response_cache_enabled else None

    def close(self) -> None:
        pass  # the services belong to whoever connected
