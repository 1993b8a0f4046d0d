"""Error sentences for agents, shared by every way a tool is called (MCP transports and in-process).

No `mcp` import here: the agent's in-process tool path and the daemon client use these too.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from edge_agent.errors import EdgeAgentError


def sent(value: object) -> str:
    """What a caller sent, as repr cut to 60 characters (a long value must not swamp the sentence)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def invalid_arguments(exc: ValidationError) -> str:
    """One sentence per bad argument (name, problem, what was sent), without pydantic's doc links.

    An argument that may take several forms (a list of bytes or a hex string) fails once per form;
    a form's own explanation (a value error) is kept over the others' "should be a ..." lines.
    """
    by_arg: dict[str, list[Any]] = {}
    for err in exc.errors(include_url=False):
        # pydantic names union members and validator chains in the location; the agent needs the argument.
        where = ".".join(str(p) for p in err["loc"] if isinstance(p, int) or str(p).isidentifier()) or "arguments"
        by_arg.setdefault(where, []).append(err)
    parts = []
    for where, errs in by_arg.items():
        explained = [e for e in errs if e["type"] == "value_error"] or errs
        for err in explained:
            msg = str(err["msg"]).removeprefix("Value error, ")
            parts.append(f"{where}: {msg} (got {sent(err.get('input'))})")
    return f"invalid arguments: {'; '.join(parts)}; the tool's input schema lists the expected types"


def for_agent(exc: EdgeAgentError) -> str:
    """An error's message with its next step written for an agent (a tool to call, not a command to run)."""
    return exc.explain("agent")


def unknown_arguments(tool: str, unknown: list[str], known: list[str]) -> str:
    """The refusal for arguments a tool does not take (a misspelt name must not be silently dropped)."""
    return (f"Error executing tool {tool}: unknown argument(s) {', '.join(repr(u) for u in unknown)}; "
            f"{tool} takes {', '.join(known) or 'no arguments'}")
