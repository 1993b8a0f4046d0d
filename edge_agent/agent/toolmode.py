"""Tools described in the prompt, for servers that refuse the OpenAI ``tools`` field.

Some servers take no ``tools`` (llama.cpp's server started without ``--jinja``, an Ollama model whose
template has no tool support) or take them and then fight the runtime's own tool instructions. For
such a provider (``[providers.NAME] tool_calls = "prompt"``, or what the probe found) the request is
rewritten here: the tools are listed at the end of the system message with the one call format the
loop reads back (a reply that is only ``{"name": ..., "arguments": {...}}``), the assistant's earlier
calls become that text, and tool results become user messages (still fenced as data). The system
prompt itself stays first and unchanged, so a server's prompt cache still covers it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.jsontypes import JsonValue

CALL_RULE = ('To use a tool, reply with only one JSON object and nothing else: {"name": "<tool>", "arguments": '
             '{...}}. You get its result back, then answer in plain text. Answer without a tool when none is '
             "needed. Tools:")


def _type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "|".join(json.dumps(v) for v in prop["enum"])
    kinds = [prop.get("type")] + [alt.get("type") for alt in prop.get("anyOf", [])]
    names = [k for k in dict.fromkeys(kinds) if k and k != "null"]
    text = "|".join(names) or "any"
    if "minimum" in prop and "maximum" in prop:
        text += f" {prop['minimum']}-{prop['maximum']}"
    return text


def describe_tools(tools: Sequence[dict[str, Any]]) -> str:
    """One line per tool: ``name(arg: type, optional?: type): description``."""
    lines = []
    for spec in tools:
        fn = spec["function"]
        params = fn.get("parameters") or {}
        required = set(params.get("required", []))
        args = ", ".join(f"{name}{'' if name in required else '?'}: {_type(prop)}"
                         for name, prop in (params.get("properties") or {}).items())
        lines.append(f"- {fn['name']}({args}): {(fn.get('description') or '').strip()}")
    return "\n".join(lines)


def prompt_mode(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages with the tools in the system message and no tool-call structure left."""
    out: list[dict[str, Any]] = []
    block = f"{CALL_RULE}\n{describe_tools(tools)}"
    for m in messages:
        role = m.get("role")
        if role == "system" and not out:
            out.append({"role": "system", "content": f"{m.get('content') or ''}\n\n{block}"})
        elif role == "assistant" and m.get("tool_calls"):
            calls = [json.dumps({"name": c["function"]["name"], "arguments": _args(c["function"]["arguments"])},
                                ensure_ascii=False) for c in m["tool_calls"]]
            out.append({"role": "assistant", "content": "\n".join(calls)})
        elif role == "tool" or role == "user":
            _add_user(out, str(m.get("content") or ""))
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    if not out or out[0]["role"] != "system":
        out.insert(0, {"role": "system", "content": block})
    return out


def _args(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _add_user(out: list[dict[str, Any]], content: str) -> None:
    """Append a user message, joined to the previous one when that is a user message too."""
    if out and out[-1]["role"] == "user":
        out[-1] = {"role": "user", "content": f"{out[-1]['content']}\n\n{content}"}
    else:
        out.append({"role": "user", "content": content})


def call_schema(tools: Sequence[dict[str, Any]], only: Sequence[str] | None = None,
                values: Mapping[str, Sequence[JsonValue]] | None = None) -> dict[str, Any]:
    """A JSON schema whose instances are exactly the well-formed calls to `tools` (those named in `only`,
    when given): ``{"name": <tool>, "arguments": {...}}``, or a list of up to four such calls. `values`
    narrows arguments of those names to the listed values (the pins the operator's message names, the
    level it asks for, the addresses it names), for each tool that has them; an optional argument with a
    default and no listed values is left out (the tool's default applies).

    Sent as the request's ``response_format`` when an answer must be a call, it becomes a grammar on
    servers that constrain output to a schema (llama.cpp, Ollama, vLLM): the reply can be nothing but a
    call with the tool's own argument names and types. That works whatever the model's chat template
    says about tool calls (a template the server does not recognise gets no tool grammar of its own).
    """
    wanted = None if only is None else set(only)
    alternatives = []
    for spec in tools:
        fn = spec["function"]
        if wanted is not None and fn["name"] not in wanted:
            continue
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        props = dict(params.get("properties") or {})
        required = set(params.get("required") or ())
        for arg, prop in list(props.items()):
            allowed = (values or {}).get(arg)
            if allowed:
                narrowed = {k: v for k, v in prop.items() if k not in ("anyOf", "type", "enum")}
                props[arg] = {**narrowed, "enum": list(allowed)}
            elif arg not in required and isinstance(prop, dict) and "default" in prop:
                # an optional argument the message gives no value for is left to the tool's default (a
                # small model forced to write a call otherwise fills in any value the type allows)
                del props[arg]
        params = {**params, "properties": props}
        alternatives.append({"type": "object", "properties": {"name": {"const": fn["name"]}, "arguments": params},
                             "required": ["name", "arguments"], "additionalProperties": False})
    if not alternatives:
        raise ValueError("no tool to call: the forced call names none of the tools offered")
    one = alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}
    return {"anyOf": [one, {"type": "array", "items": one, "minItems": 1, "maxItems": 4}]}
