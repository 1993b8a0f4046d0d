"""The final answer of a turn that ran tools: what the tools did, stated from their results, first.

A small model's words after a tool call are often wrong: "pressed" for a line that reads high, four
of five I2C devices, "I changed PA0 to 1" after the policy refused the write, or only the advice to
edit the policy without saying the write did not happen. The tool results are structured, so the
answer starts with one short line per distinct call, written from them:

- a GPIO write or read: the pin as asked and as resolved (and the LED or button it is), the level as
  0/1 and high/low;
- an I2C scan: how many devices answered, their addresses in hex (and the driver-owned ones);
- a sensor reading: each quantity with its unit;
- an I2C read or write, an SPI transfer, a pin lookup: what was read, written or found;
- a call a rule refused (its outcome ``refused`` or ``needs_approval``, from the class of the error it
  raised): "Refused, not done:" with the reason and what would allow it (the refusal's own words); a
  write that failed: "Failed, not done:"; any other failed call: "Failed:" with the error. A malformed
  call (the model's slip, answered with what a valid call looks like) and a call made when no tool was
  offered are not something the tools did: no line.

The model's text follows the facts unless it contradicts them: a claim that a refused write happened,
a level opposite to the one read, a device count or an address the scan did not find, a reading more
than a little off; or it is not prose at all (a copy of a tool result or of call markup). Then it is
left out and the turn's notes keep it. Tools without a fact line (datasheet search, memory) leave the
model's text as it is. Pure functions over the turn's records.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.agent.records import NOT_DONE, Outcome, ToolRecord
from edge_agent.hub import HARDWARE_WRITES

# Calls that are the model's slip, not something the tools did: no fact line, and nothing to contradict.
_NOT_STATED = frozenset({Outcome.MALFORMED, Outcome.NOT_OFFERED})
_PREFIX = re.compile(r"^(Error executing tool [a-z_0-9]+:\s*)?([a-z][a-z0-9+.-]*://[^\s:]+:\s*)?", re.IGNORECASE)
# Words that admit a write did not happen (a model text with them does not claim the write).
_ADMITS = re.compile(r"refus|not allowed|not permitted|cannot|can't|can not|could not|couldn't|unable|not (?:been )?"
                     r"(?:done|run|changed|written|set)|did not|didn't|was not|wasn't|policy|writable|approv|"
                     r"permission|read-?only|blocked|denied", re.IGNORECASE)
_CLAIMS_DONE = re.compile(r"\b(?:i|i've|i have|we|it)\s+(?:just\s+)?(?:changed|set|turned|switched|drove|driven|wrote|"
                          r"written|updated|toggled|lit)\b|\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?"
                          r"(?:set|turned|switched|driven|changed|written|updated|toggled|on|off|high|low|lit)\b|"
                          r"\bnow\s+(?:on|off|high|low|lit)\b|\bsuccessfully\b", re.IGNORECASE)
_HEX = re.compile(r"\b0x([0-9a-f]{1,2})\b", re.IGNORECASE)
_WORD_NUMBERS = {"no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10}
_COUNT = re.compile(r"\b(\d+|no|zero|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:(?:i2c|i²c|connected|"
                    r"responding|active|unique|distinct|different)\s+){0,2}(?:devices?|addresses|targets|chips)\b",
                    re.IGNORECASE)
_UNITS = (("temperature_c", re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s*(?:°\s*C|º\s*C|degrees|deg\b|C\b|celsius)",
                                       re.I), 1.0),
          ("humidity_pct", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent)", re.I), 2.0),
          ("pressure_hpa", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:hPa|mbar|millibar)", re.I), 2.0))
_NOT_PROSE = re.compile(r'^\s*(?:[{\[<]|```|"?(?:error|result|note)"?\s*:)|<tool_(?:call|response)>|"arguments"\s*:',
                        re.IGNORECASE)


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _level(value: Any) -> str:
    return {0: "0 (low)", 1: "1 (high)"}.get(value if isinstance(value, int) else -1, repr(value))


def _pin(asked: Any, resolved: Any, labels: Mapping[str, str]) -> str:
    """"D13 (= PA5, LED LD2)": the pin as asked, as resolved, and the LED or button it is."""
    extra = [f"= {resolved}"] if resolved and str(resolved) != str(asked) else []
    label = labels.get(str(resolved or asked))
    if label and label.split()[-1] != str(asked):
        extra.append(label)
    return f"{asked} ({', '.join(extra)})" if extra else str(asked)


def _hexes(values: Any) -> str:
    return ", ".join(f"0x{v:02X}" for v in values if isinstance(v, int))


def _reason(error: str) -> str:
    text = _PREFIX.sub("", error.strip(), count=1)
    text = text[len("not run: "):] if text.startswith("not run: ") else text
    return text if len(text) <= 300 else text[:300] + "..."


def _what(name: str, args: Any) -> str:
    """The attempted call in words, for a line about a call that did not run."""
    a = _obj(args)
    if name == "gpio_write" and "pin" in a:
        return f"{name} {a.get('pin')} = {a.get('value')}"
    if name in ("i2c_write", "i2c_read", "sensor_read") and "addr" in a:
        return f"{name} at {a.get('addr')}"
    if name == "gpio_read" and "pin" in a:
        return f"{name} {a.get('pin')}"
    return name


def fact(rec: ToolRecord, labels: Mapping[str, str] | None = None) -> str | None:
    """One line on what a tool call did, from its result; None when there is nothing to state."""
    labels = labels or {}
    if rec.repeat or rec.outcome in _NOT_STATED:
        return None
    if rec.error is not None:
        if rec.outcome in NOT_DONE:
            verdict = "Refused, not done"
        else:
            verdict = "Failed, not done" if rec.name in HARDWARE_WRITES else "Failed"
        reason = _reason(rec.error)
        return f"{verdict}: {reason}" if reason.startswith(f"{rec.name}:") \
            else f"{verdict}: {_what(rec.name, rec.arguments)}: {reason}"
    r, args = _obj(rec.result), _obj(rec.arguments)
    if rec.name in ("gpio_write", "gpio_read") and "value" in r:
        pin = _pin(r.get("requested", args.get("pin")), r.get("pin"), labels)
        verb = "set to" if rec.name == "gpio_write" else "reads"
        return f"{'Done' if rec.name == 'gpio_write' else 'Read'}: pin {pin} {verb} {_level(r['value'])}."
    if rec.name == "i2c_scan" and "addresses" in r:
        found = [a for a in r.get("addresses") or [] if isinstance(a, int)]
        busy = [a for a in r.get("busy") or [] if isinstance(a, int)]
        where = f"I2C bus {r.get('bus')}" + (f" on {r['adapter']}" if r.get("adapter") else "")
        line = (f"Scan: {len(found)} device{'' if len(found) == 1 else 's'} answered on {where}: {_hexes(found)}."
                if found else f"Scan: no device answered on {where}.")
        return line + (f" Driver-owned (not probed): {_hexes(busy)}." if busy else "")
    if rec.name == "sensor_read" and "temperature_c" in r:
        parts = [f"temperature {r['temperature_c']:.1f} °C" if isinstance(r.get("temperature_c"), int | float) else "",
                 f"pressure {r['pressure_hpa']:.1f} hPa" if isinstance(r.get("pressure_hpa"), int | float) else "",
                 f"humidity {r['humidity_pct']:.1f} %" if isinstance(r.get("humidity_pct"), int | float) else ""]
        return (f"Reading: {str(r.get('sensor', 'sensor')).upper()} at {r.get('addr_hex', r.get('addr'))}: "
                + ", ".join(p for p in parts if p) + ".")
    if rec.name == "i2c_read" and "data" in r:
        reg = f" register {r['register_hex']}" if r.get("register_hex") else ""
        return f"Read: I2C {r.get('addr_hex')}{reg}: {_hexes(r.get('data') or [])}."
    if rec.name == "i2c_write" and "written" in r:
        reg = f" at register {r['register_hex']}" if r.get("register_hex") else ""
        return f"Done: wrote {r['written']} byte(s) to I2C {r.get('addr_hex')}{reg}."
    if rec.name == "spi_transfer" and "rx" in r:
        return f"Done: SPI transfer on CS {r.get('cs')}: received {_hexes(r.get('rx') or [])}."
    if rec.name == "pin_resolve" and r.get("name"):
        headers = ", ".join(str(h) for h in (r.get("headers") or [])[:4])
        return f"Pin: {args.get('name', r['name'])} is {r['name']}" + (f" ({headers})." if headers else ".")
    return None


def facts(records: Sequence[ToolRecord], labels: Mapping[str, str] | None = None) -> list[str]:
    """The fact lines of a turn's tool calls, each distinct line once, in order."""
    lines = [line for rec in records if (line := fact(rec, labels))]
    return list(dict.fromkeys(lines))


def contradiction(records: Sequence[ToolRecord], text: str) -> str | None:
    """Why the model's `text` contradicts what the tools did (None when it does not, as far as can be told)."""
    if _NOT_PROSE.search(text):
        return "it is not an answer but a copy of a tool result or of call markup"
    real = [r for r in records if not r.repeat and r.outcome not in _NOT_STATED]
    failed = [r for r in real if r.name in HARDWARE_WRITES and not r.ok]
    done = [r for r in real if r.name in HARDWARE_WRITES and r.ok]
    if failed and not done and _CLAIMS_DONE.search(text) and not _ADMITS.search(text):
        return "it says a write happened that was refused or failed"
    if done and not failed and re.search(r"\b(?:refused|failed|could not|couldn't|unable to)\b", text, re.I):
        return "it says a write failed that was done"
    for r in real:
        res = _obj(r.result)
        if not r.ok:
            continue
        if r.name == "gpio_read" and res.get("value") in (0, 1):
            said = {w.lower() for w in re.findall(r"\b(high|low)\b", text, re.I)}
            if said and said == {"low" if res["value"] == 1 else "high"}:
                return f"it says the line is {said.pop()}, and {res.get('pin')} read {res['value']}"
        if r.name == "i2c_scan" and isinstance(res.get("addresses"), list):
            found = {a for a in res["addresses"] if isinstance(a, int)} | {a for a in res.get("busy") or []
                                                                          if isinstance(a, int)}
            for m in _COUNT.finditer(text):
                word = m.group(1).lower()
                n = _WORD_NUMBERS.get(word, int(word) if word.isdigit() else -1)
                if n != len(res["addresses"]):
                    return f"it counts {n} devices, and the scan found {len(res['addresses'])}"
            stray = sorted({int(h, 16) for h in _HEX.findall(text)} - found)
            if stray and len(found) > 0 and not re.search(r"regist", text, re.I):
                return f"it names {_hexes(stray)}, which the scan did not find"
        if r.name == "sensor_read":
            for key, pattern, tolerance in _UNITS:
                value = res.get(key)
                if not isinstance(value, int | float):
                    continue
                for m in pattern.finditer(text):
                    if abs(float(m.group(1)) - value) > tolerance:
                        return f"it gives {m.group(0).strip()}, and the sensor read {value:.1f}"
    return None


def answer(records: Sequence[ToolRecord], text: str, labels: Mapping[str, str] | None = None) -> tuple[str, list[str]]:
    """(the answer: fact lines first, then the model's text unless it contradicts them; notes on what
    was left out). With no fact line the model's text is the answer as it is."""
    lines = facts(records, labels)
    if not lines:
        return text, []
    why = contradiction(records, text) if text else None
    if why is not None:
        shown = text if len(text) <= 200 else text[:200] + "..."
        return "\n".join(lines), [f"the model's answer was left out because {why}: {shown!r}"]
    return "\n".join([*lines, text] if text else lines), []
