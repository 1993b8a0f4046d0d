"""What a model reply means: visible answer, hidden reasoning, and tool calls however they were written.

Servers parse native ``tool_calls`` only when they know the model's template; small local models often
write the call as text instead. A reply counts as a call only when it IS one: the whole visible text
is a JSON object ``{"name": ..., "arguments": {...}}`` (``parameters`` in the Llama style) or a list of
them, or the reply starts with one of the framings these models use: ``<tool_call>...</tool_call>``
(Hermes/Qwen, possibly several in a row), a Markdown ```json fence holding the whole reply,
``<|python_tag|>`` or ``[TOOL_CALLS] [...]`` (Mistral). A reply that starts with complete call objects
and carries on in prose (small models write the call, then an invented result) is those calls; the
prose is dropped and the tool result says so. A call quoted inside an explanation ("I did not run
{...}") is prose and never runs. Reasoning in ``<think>...</think>`` is removed from what the
user sees and never parsed for calls. JSON nested deeper than ``MAX_DEPTH`` is refused before it is
decoded, so a hostile or broken reply cannot exhaust the interpreter's recursion limit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
# <tool_call> is the Hermes/Qwen framing; <tools> is the tag the same templates put around the tool list,
# which a small model sometimes writes around its call instead.
_TAGGED = re.compile(r"<(tool_call|tools)>\s*(.*?)\s*(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|tool_call|tool)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_PREFIXES = ("<|python_tag|>", "[TOOL_CALLS]")
# Text that may turn out to be a call: held back from a streamed answer until the reply is complete.
CALL_STARTS = ("{", "[", "<tool_call", "<tools>", "```", *_PREFIXES)


MAX_DEPTH = 20  # brackets: a call is {"arguments": {"bytes": [..]}}, far below this


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when JSON text nests objects/arrays deeper than `limit` (strings are skipped)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def loads(text: str) -> Any:
    """json.loads that refuses deep nesting with ValueError instead of raising RecursionError."""
    if too_deep(text):
        raise ValueError(f"the JSON is nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"the JSON is nested too deeply (more than {MAX_DEPTH} levels)") from None


@dataclass
class ParsedCall:
    """One tool call from a reply; ``error`` says why it cannot run (malformed JSON, no name...)."""

    name: str
    arguments: Any
    id: str = ""
    error: str = ""
    note: str = ""  # what was made of a slip in the call's text (said in the tool result)


def split_reasoning(text: str) -> tuple[str, str]:
    """(visible text, reasoning) with every ``<think>`` block removed from the visible text.

    A lone ``</think>`` (templates that open the block in the prompt) hides everything before it.
    """
    if not text:
        return "", ""
    reasoning = [m.group(0) for m in _THINK.finditer(text)]
    visible = _THINK.sub("", text)
    close = visible.lower().rfind("</think>")
    if close >= 0:
        reasoning.append(visible[:close])
        visible = visible[close + len("</think>"):]
    cleaned = [re.sub(r"</?think>", "", r, flags=re.IGNORECASE).strip() for r in reasoning]
    return visible.strip(), "\n".join(r for r in cleaned if r)


def parse_arguments(raw: Any) -> tuple[Any, str, str]:
    """(arguments as a value, an error when they are not a JSON object, a note on what was repaired).

    A JSON string is decoded. A complete JSON object followed by stray text (an extra ``}``, or the
    model carrying on in prose after the call) counts as that object: the rest is dropped and said.
    """
    if raw is None or raw == "":
        return {}, "", ""
    note = ""
    if isinstance(raw, str):
        try:
            raw = loads(raw)
        except json.JSONDecodeError as exc:
            lead = _leading_object(raw)
            if lead is None:
                return raw, f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})", ""
            raw, rest = lead
            note = f"ignored {_clip(rest)!r} written after the arguments"
        except ValueError as exc:  # numbers too long to convert, nesting too deep
            return raw, f"the arguments are not valid JSON ({exc})", ""
    if not isinstance(raw, dict):
        return raw, "the arguments must be a JSON object of argument names to values", ""
    return raw, "", note


def _leading_object(text: str) -> tuple[dict[str, Any], str] | None:
    """(the JSON object `text` starts with, the text after it), or None when it starts with none."""
    body = text.lstrip()
    if not body.startswith("{") or too_deep(body):
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(body)
    except (ValueError, RecursionError):
        return None
    return (value, body[end:].strip()) if isinstance(value, dict) else None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


_ARGUMENT_KEYS = ("arguments", "parameters", "args")


def _call_from(obj: Any, tagged: bool) -> ParsedCall | None:
    """A call from a decoded JSON object, or None when the object does not look like a call.

    Outside ``<tool_call>`` tags the object must carry its arguments too, so an answer that happens
    to be JSON with a "name" field is not taken for a call.
    """
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        obj = obj["function"]
    if not tagged and not any(k in obj for k in _ARGUMENT_KEYS):
        return None
    name = obj.get("name", obj.get("tool"))
    if not isinstance(name, str) or not name.strip():
        return None
    raw = obj.get("arguments", obj.get("parameters", obj.get("args")))
    args, error, note = parse_arguments(raw)
    return ParsedCall(name.strip(), args, error=error, note=note)


# A bare hexadecimal number as a JSON value (`"address": 0x1E`): small models write register and
# bus addresses the way datasheets print them. Quoted, it is a string the tools accept ("0x1E").
_HEX_VALUE = re.compile(r"(:\s*|\[\s*|,\s*)(0[xX][0-9a-fA-F]+)(?=\s*[,}\]])")


def _json_values(text: str) -> list[Any] | None:
    """The JSON value of `text`, or the values of several written one after another (a small model
    writes one object per call, a line each); None when it is not JSON even with hex numbers quoted."""
    quoted = _HEX_VALUE.sub(lambda m: f'{m.group(1)}"{m.group(2)}"', text)
    # {{...}}: braces doubled as in a template's escaping
    undoubled = quoted[1:-1].strip() if quoted.startswith("{{") and quoted.endswith("}}") else quoted
    for candidate in dict.fromkeys((text, quoted, undoubled)):
        try:
            value = loads(candidate)
            return value if isinstance(value, list) else [value]
        except ValueError:
            pass
        values, pos, decoder = [], 0, json.JSONDecoder()
        try:
            while pos < len(candidate):
                value, pos = decoder.raw_decode(candidate, pos)
                values.append(value)
                while pos < len(candidate) and candidate[pos].isspace():
                    pos += 1
        except (ValueError, RecursionError):
            continue
        if len(values) > 1:
            return values
    return None


def _calls_from_json(text: str, tagged: bool = False) -> list[ParsedCall] | None:
    """Calls from a JSON object, a list of objects or objects one after another; None when `text` is
    not JSON or holds no call."""
    if too_deep(text):
        return None
    items = _json_values(text)
    if items is None:
        return None
    calls = [_call_from(item, tagged) for item in items]
    if not calls or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def text_tool_calls(visible: str) -> list[ParsedCall]:
    """Tool calls written as text in the (reasoning-free) reply; [] when it is a plain answer.

    Only a reply that is a call counts: the whole text, or a documented framing at its very start.
    """
    text = visible.strip()
    if not text:
        return []
    if text.lower().startswith(("<tool_call>", "<tools>")):
        return _once(_tagged_calls(text))
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):].strip()
    calls = _calls_from_json(text)
    if not calls and (whole := _FENCE.fullmatch(text)):
        calls = _calls_from_json(whole.group(1).strip())
    calls = calls or _leading_calls(text)
    if calls:
        return _once(calls)
    if _looks_like_broken_call(text):
        return [ParsedCall("", text, error="the reply looks like a tool call but is not valid JSON")]
    return []


_LEADING_FENCE = re.compile(r"```(?:json|tool_call|tool)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
TEXT_AFTER_CALL = ("the text written after the call was dropped: a tool's result is known only once it has "
                   "run, and it is below")


def _leading_calls(text: str) -> list[ParsedCall]:
    """The calls a reply starts with when more follows them: JSON call objects one after another (stray
    closing braces and commas between them skipped), or one ```json fence holding them. A small model
    writes the call, then carries on as if it had run: prose with a made-up result, or a copy of the
    result (or of an earlier error) as another JSON object. Objects that are not calls and the prose
    are dropped, with a note on the first call."""
    m = _LEADING_FENCE.match(text)
    notes: list[str] = []
    if m:
        calls = _calls_from_json(m.group(1).strip()) or []
        if calls:
            notes.append(TEXT_AFTER_CALL)
    else:
        if not text.startswith("{") or too_deep(text):
            return []
        text = "{" + text.lstrip("{") if text.startswith("{{") else text  # {{...}}}: doubled braces
        text = _HEX_VALUE.sub(lambda h: f'{h.group(1)}"{h.group(2)}"', text)
        calls, skipped, rest = _object_run(text)
        if skipped and calls:
            notes.append(f"ignored {skipped} JSON object{'s' if skipped > 1 else ''} written after the call that "
                         f"{'are' if skipped > 1 else 'is'} not a call (a tool's result comes only from running it)")
        if rest and calls:
            notes.append(TEXT_AFTER_CALL)
    if calls:
        calls[0].note = "; ".join(n for n in (calls[0].note, *notes) if n)
    return calls


def _object_run(text: str) -> tuple[list[ParsedCall], int, bool]:
    """(the calls among the JSON objects `text` starts with, how many objects were not calls, whether
    text that is not a JSON object follows). Stray ``}`` and ``,`` between objects are skipped."""
    calls: list[ParsedCall] = []
    skipped, pos, decoder = 0, 0, json.JSONDecoder()
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] in "},"):
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            break
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            break
        pos = end
        call = _call_from(value, False)
        if call is None:
            skipped += 1
        else:
            calls.append(call)
    return calls, skipped, pos < len(text)


def dedupe(calls: list[ParsedCall]) -> tuple[list[ParsedCall], int]:
    """(the calls with each one identical to the call just before it left out, how many were left out).

    A small model writes the same call several times in one reply; only a call right after its twin
    goes, so "on, off, on" still runs three times."""
    out: list[ParsedCall] = []
    for c in calls:
        if out and c.name == out[-1].name and _same(c.arguments, out[-1].arguments) and not c.error:
            continue
        out.append(c)
    return out, len(calls) - len(out)


def _once(calls: list[ParsedCall]) -> list[ParsedCall]:
    kept, dropped = dedupe(calls)
    if dropped:
        copies = f"left out {dropped} identical cop{'ies' if dropped > 1 else 'y'} of a call written right after it"
        kept[0].note = "; ".join(n for n in (kept[0].note, copies) if n)
    return kept


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _tagged_calls(text: str) -> list[ParsedCall]:
    """The ``<tool_call>`` blocks in a row at the start of the text (what follows them is not parsed)."""
    out: list[ParsedCall] = []
    pos = 0
    while True:
        m = _TAGGED.match(text, pos)
        if m is None:
            break
        body = m.group(2)
        calls = _calls_from_json(_unfence(body), tagged=True)
        out.extend(calls or [ParsedCall("", body, error="the <tool_call> body is not a JSON object with "
                                                 "\"name\" and \"arguments\"")])
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    if out and pos < len(text):  # prose after the tagged calls: written before any result existed
        out[0].note = "; ".join(n for n in (out[0].note, TEXT_AFTER_CALL) if n)
    return out


def _unfence(body: str) -> str:
    m = _FENCE.search(body)
    return m.group(1).strip() if m else body


def _looks_like_broken_call(text: str) -> bool:
    """A reply that is nothing but an attempt at a JSON call that did not parse."""
    body = text
    m = re.fullmatch(r"```(?:json)?\s*(.*?)\s*(```)?", text, re.DOTALL)
    if m:
        body = m.group(1)
    return body.startswith("{") and bool(re.search(r"\"(arguments|parameters)\"\s*:", body))


class StreamFilter:
    """Turns streamed content deltas into what the user may see as it arrives.

    ``<think>`` blocks are dropped; a reply that may be a tool call written as text (one starting with
    ``{``, a ``<tool_call>`` tag, a fence...) is held back, and :meth:`finish` releases the rest only
    if the complete reply turned out to be an answer.
    """

    def __init__(self) -> None:
        self.raw = ""
        self.shown = ""  # the visible text released so far

    def _visible(self) -> str:
        low = self.raw.lower()
        text = self.raw
        start = low.rfind("<think>")
        if start >= 0 and "</think>" not in low[start:]:
            text = text[:start]  # inside an open block: only what came before it
        return _THINK.sub("", text).lstrip()

    def feed(self, delta: str) -> str:
        """Append a delta; return the new text that is safe to show now."""
        self.raw += delta
        visible = self._visible()
        if not visible or any(visible.startswith(s) or s.startswith(visible) for s in CALL_STARTS):
            return ""
        cut = visible.rfind("<")
        if cut >= len(self.shown) and len(visible) - cut < 12:  # maybe the start of a tag: wait for more
            visible = visible[:cut]
        if not visible.startswith(self.shown) or len(visible) <= len(self.shown):
            return ""
        out, self.shown = visible[len(self.shown):], visible
        return out

    def finish(self, answer: str | None) -> str:
        """What remains to show of the final `answer` (None when the reply was a tool call)."""
        if answer is None or not answer.startswith(self.shown):
            return ""
        rest, self.shown = answer[len(self.shown):], answer
        return rest
