"""A lookup answered from what the pin index, the board files, the operator's notes and the datasheet
search returned for it, stated from those results before the model's words.

Asked which pin or register something is, a small model reads the documentation in its prompt and
often picks the wrong row: USART2 on "D1 and D2", ctrl_meas at 0xF5 (the next row), a remembered relay
pin replaced by the LED's. The turn's context already holds the results of the lookups: the pin
aliases the message names (the pin index's resolution), the datasheet chunks retrieved for it, the
operator's notes that engage returned. :func:`lookup_facts` states the answer from them, one line
each, in this order and only as far as each applies:

- ``Pin: D12 is PA6 (CN10-13, CN5-5, D12, SPI1_MISO).`` for each pin or alias the message names, as
  the pin index resolved it, and for a native pin name it writes ("PB5"), from the board file;
- ``Pin: USART2_TX is PA2 (CN10-35, CN9-2, D1).`` for a peripheral signal the message names (the
  peripheral, and the signal or none of its signals), from the board file's pin functions;
- ``Your note: ...`` the stored note that shares the most words with the question (two at least, or
  all of a one-word question), when no pin line answered;
- ``Datasheet bme280.md (Registers): Address 0xF4, Name ctrl_meas, Use ...`` the one line of the
  retrieved chunks that matches the question's rarer words best, when neither a pin nor a note did.
  A best line that gives a pin to a name the question does not ask (``flash_led: GPIO4`` for a
  question about the status LED) is never offered: a pin for a similar name is the wrong pin, so the
  line says the asked name was not found instead.

The lines go to the model with the message (fenced as data, so its words can agree with them) and
start the answer. The model's words follow unless they contradict the lines: a pin a pin line does
not name, only pins a note does not name, or register values disjoint from the datasheet line's.
Pure functions over the turn's context; the same message and context give the same lines, so the
response cache stays valid.

The pin lines come from the pin index's results as records (board, name, pin, detail), not from the
rendered pin block, so a name or board written with any characters is stated as the index gave it.

An action whose message writes no pin name is forced to the pins :func:`pin_aliases` (the pin
index's aliases for its words) or :func:`note_pin` (the note that answers it) give.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from edge_agent.agent.ports import PinFact

_SOURCE = re.compile(r"^--- (?P<source>\S+)(?: page \d+)? \((?P<board>[^)]*)\) ---$")
_FUNCTION = re.compile(r"^(?P<periph>[A-Z][A-Z0-9]*)_(?P<role>[A-Z]+\d*)$")
# What a signal is also called in a question.
_ROLE_WORDS = {"TX": ("tx", "transmit"), "RX": ("rx", "receive"), "SCL": ("scl", "clock"), "SDA": ("sda", "data"),
               "SCK": ("sck", "clock"), "MOSI": ("mosi",), "MISO": ("miso",), "CS": ("cs", "select"),
               "NSS": ("nss", "select")}
_PORT_PIN = re.compile(r"\b(P[A-K]\d{1,2}|[AD]\d{1,2}|LD\d|B\d)\b")
_HEX = re.compile(r"\b0x[0-9a-f]{1,4}\b", re.IGNORECASE)
# A pin-alias line of a datasheet ("flash_led: GPIO4", "- `red_led`: PA5", "user_led = PA5"): a name and one value.
_ASSIGN = re.compile(r"(?:[-*]\s+)?`?(?P<name>[A-Za-z_][\w.+#-]*)`?\s*[:=]\s*`?[\w.+#-]+`?")
# A name as a configuration or datasheet writes it (status_led, LED_BUILTIN): words joined by underscores.
_IDENT = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_WORD = re.compile(r"[a-z0-9]+(?:[_-][a-z0-9]+)*", re.IGNORECASE)
# Words that say what kind of thing is asked, not which one: they choose no line.
_GENERIC = frozenset(re.findall(r"\S+", """
a an the of on in at to for from by with and or but if is are was were be been do does did it its this that these
those my our your i me we you he she they what which where when who whom whose why how can could would should will
shall may might must please tell say give show find look know want need use used using there here than then also
only just now right currently any some all each every one both about into onto over under up down out off yes no
pin pins board boards mcu chip value values register registers address addresses hold holds held set setting
settings read reads write writes number name called mean means connected wired go goes get
"""))
_MAX_PIN_LINES = 4


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ed", "en", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def terms(text: str) -> set[str]:
    """The words of `text` that can tell one line from another (stemmed; generic words left out).
    A word written with a hyphen or underscore counts whole and by its parts ("soft-reset")."""
    out: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group(0).lower()
        for w in {word, *re.split(r"[_-]", word)}:
            if len(w) >= 2 and w not in _GENERIC:
                out.add(_stem(w))
    return out


def _resolved(pins: Sequence[PinFact], message: str) -> list[tuple[str, str, str, str]]:
    """(name, board, pin, detail) per pin the pin index resolved for the message, named as the message
    wrote it (else by the first name found for it)."""
    low = message.lower()
    by_pin: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for fact in pins:
        by_pin.setdefault((fact.board, fact.pin), []).append((fact.alias, fact.detail))
    out = []
    for (board, pin), names in by_pin.items():
        written = [n for n in names if re.search(r"(?<![\w])" + re.escape(n[0].lower()) + r"(?![\w])", low)]
        alias, detail = (written or names)[0]
        out.append((alias, board, pin, detail))
    return out


def pin_lines(pins: Sequence[PinFact], message: str) -> list[str]:
    """One line per pin the pin index resolved for the message, named as the message wrote it."""
    found = _resolved(pins, message)
    several = len({board for _, board, _, _ in found}) > 1
    return [f"Pin: {alias}{f' on {board}' if several else ''} is {pin}" + (f" ({detail})." if detail else ".")
            for alias, board, pin, detail in found[:_MAX_PIN_LINES]]


def pin_aliases(pins: Sequence[PinFact], message: str) -> list[str]:
    """One name per pin the pin index resolved for the message ("user_led" for "the green user LED"), the
    name the message wrote when it wrote one."""
    return [alias for alias, _, _, _ in _resolved(pins, message)[:_MAX_PIN_LINES]]


def note_pin(message: str, notes: Sequence[Mapping[str, Any]]) -> list[str]:
    """The pin the one note that answers the message names first ("D4" of "the drain valve is on D4
    (PB5)"); none when no note, or more than one, answers it."""
    best = note_lines(message, notes)
    found = _PORT_PIN.findall(best[0]) if len(best) == 1 else []
    return found[:1]


def function_lines(message: str, boards: Sequence[Any]) -> list[str]:
    """One line per peripheral signal the message names (``boards`` are board-file objects with ``pins``,
    each with ``name``, ``headers`` and ``functions``)."""
    words = {w.lower() for w in _WORD.findall(message)} | {p.lower() for w in _WORD.findall(message)
                                                          for p in re.split(r"[_-]", w)}
    lines: list[str] = []
    for board in boards:
        signals: list[tuple[str, str, Any]] = []
        for pin in getattr(board, "pins", []):
            for function in pin.functions:
                m = _FUNCTION.match(str(function))
                if m and m.group("periph").lower() in words:
                    signals.append((m.group("periph"), m.group("role"), pin))
        for periph in dict.fromkeys(p for p, _, _ in signals):
            mine = [(role, pin) for p, role, pin in signals if p == periph]
            asked = [(role, pin) for role, pin in mine
                     if any(w in words for w in _ROLE_WORDS.get(role, (role.lower(),)))]
            for role, pin in asked or mine:
                headers = ", ".join(h for h in pin.headers[:3])
                lines.append(f"Pin: {periph}_{role} is {pin.name}" + (f" ({headers})." if headers else "."))
    return list(dict.fromkeys(lines))[:_MAX_PIN_LINES]


def note_lines(message: str, notes: Sequence[Mapping[str, Any]]) -> list[str]:
    """The stored note (not an earlier exchange) sharing the most words with the message: two words at
    least, or the message's only one. Two notes sharing as many are both stated."""
    asked = terms(message)
    if not asked:
        return []
    need = min(2, len(asked))
    scored: list[tuple[int, str]] = []
    for note in notes:
        content = str(note.get("content") or "").strip()
        if not content or note.get("category") == "conversation" or content.startswith("User: "):
            continue
        shared = len(asked & terms(content))
        if shared >= need:
            scored.append((shared, " ".join(content.split())))
    if not scored:
        return []
    best = max(s for s, _ in scored)
    return [f"Your note: {text}" for s, text in dict.fromkeys(scored) if s == best][:2]


def _chunks(hardware: str) -> list[tuple[str, str, list[str]]]:
    """(source, heading, units) of each datasheet chunk of the context: a unit is a table row, a list item
    or a sentence of a paragraph (a paragraph's lines joined first)."""
    out: list[tuple[str, str, list[str]]] = []
    docs = hardware.split("[Hardware documentation]", 1)
    if len(docs) < 2:
        return out
    prose: list[str] = []

    def flush() -> None:
        if prose and out:
            out[-1][2].extend(s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(`])", " ".join(prose)) if s.strip())
        prose.clear()

    for raw in docs[1].splitlines():
        line = raw.strip()
        m = _SOURCE.match(line)
        if m:
            flush()
            out.append((m.group("source"), "", []))
        elif out and line.startswith("# ") and not out[-1][2] and not out[-1][1] and not prose:
            out[-1] = (out[-1][0], line[2:].split(">")[-1].strip(), [])
        elif (not line or line == "\u2026" or line.startswith("|") or re.match(r"^([-*]|\d+\.)\s", line)
              or _ASSIGN.fullmatch(line)):  # each alias line is a unit of its own, never joined to the next
            flush()
            if out and line and line != "\u2026":
                if line.startswith("|"):
                    out[-1][2].append(line)
                else:
                    prose.append(line)
        elif out:
            prose.append(line)
    flush()
    return out


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _rendered(row: str, header: list[str] | None) -> str:
    """A table row with its column names ("Address 0xF4, Name ctrl_meas, ..."), or a text line as it is."""
    if not row.startswith("|"):
        return row.lstrip("-*0123456789. ").strip()
    cells = _cells(row)
    if header and len(header) == len(cells):
        return ", ".join(f"{h} {c}" for h, c in zip(header, cells, strict=True) if c)
    return ", ".join(c for c in cells if c)


def _key(name: str) -> str:
    return re.sub(r"[\s_:-]", "", name).lower()


def _asked(name: str, message: str) -> bool:
    """Whether the message asks for `name`: written as it is or with its words apart ("status led")."""
    words = re.findall(r"[A-Za-z0-9_.+#-]+", message)
    runs = {_key("".join(words[i:i + n])) for n in (1, 2, 3) for i in range(len(words) - n + 1)}
    return _key(name) in runs


def _pin_name(line: str, header: list[str] | None) -> str | None:
    """The name a line gives a pin: an alias line's name, or the alias column of a table row."""
    m = _ASSIGN.fullmatch(line)
    if m:
        return m.group("name")
    if line.startswith("|") and header:
        cells = _cells(line)
        for h, c in zip(header, cells, strict=False):
            if h.lower() == "alias" and c:
                return c.strip("`")
    return None


def datasheet_lines(message: str, hardware: str) -> list[str]:
    """The line of the retrieved datasheet chunks that matches the message's rarer words best, with the
    file and section it comes from; none when no line holds half of the message's words found there.
    A best line giving a pin to a name the message does not ask is refused: the answer is "not found"."""
    candidates: list[tuple[str, str, str, list[str] | None, set[str]]] = []
    for source, heading, lines in _chunks(hardware):
        # the part or board a file is about scopes the question ("the BME280's ..."): it picks no line
        asked = terms(message) - terms(source.rsplit(".", 1)[0])
        header: list[str] | None = None
        for i, line in enumerate(lines):
            if re.fullmatch(r"\|[\s|:-]+\|?", line):
                continue
            if line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|[\s|:-]+\|?", lines[i + 1]):
                header = _cells(line)
                continue
            if not line.startswith("|"):
                header = None
            candidates.append((source, heading, line, header, terms(line) & asked))
    present = set().union(*(c[4] for c in candidates)) if candidates else set()
    if not present:
        return []
    df = {t: sum(1 for c in candidates if t in c[4]) for t in present}
    n = len(candidates)

    def score(c: tuple[str, str, str, list[str] | None, set[str]]) -> tuple[float, bool]:
        return sum(math.log(1 + n / df[t]) for t in c[4]), c[2].startswith("|")

    best = max(candidates, key=score)  # the first of equals: the search's own order
    if len(best[4]) * 2 < len(present) or min(df[t] for t in best[4]) > max(2, n // 4):
        return []
    source, heading, line, header, _ = best
    other = _pin_name(line, header)
    if other is not None and not _asked(other, message):
        idents = list(dict.fromkeys(_IDENT.findall(message)))
        what = f"no pin named {', '.join(idents)}" if idents else "no pin with the name asked"
        return [f"Pin: not found: {what} in the pin index or the retrieved datasheets ({source} has {other}, "
                "a different name, so its pin is not stated)."]
    where = f"{source} ({heading})" if heading else source
    return [f"Datasheet {where}: {_rendered(line, header)}"]


def native_lines(message: str, boards: Sequence[Any]) -> list[str]:
    """One line per native pin name the message writes ("PB5"), with its headers and functions from the
    board file (the pin index's alias block lists aliases, not the pins' own names)."""
    written = {m.upper() for m in re.findall(r"\bP[A-K]\d{1,2}\b", message, re.IGNORECASE)}
    lines = []
    for board in boards:
        for pin in getattr(board, "pins", []):
            if pin.name.upper() in written and pin.headers:
                functions = ", ".join(pin.functions)
                where = ", ".join(pin.headers)
                lines.append(f"Pin: {pin.name} is on {where}" + (f" ({functions})." if functions else "."))
    return lines[:_MAX_PIN_LINES]


def lookup_facts(message: str, hardware: str, resolved: Sequence[PinFact] = (), boards: Sequence[Any] = (),
                 notes: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """The lines that answer a lookup from the turn's context (see the module's description): `hardware` is
    the context block (its datasheet chunks), `resolved` the pin facts of its pin block."""
    pins = pin_lines(resolved, message)
    named = {line.split(" is ", 1)[1].split()[0].rstrip(".") for line in pins}
    pins += [line for line in native_lines(message, boards) if line.split(" is ", 1)[0][len("Pin: "):] not in named]
    named = {line.split(" is ", 1)[1].split()[0].rstrip(".") for line in pins}
    signals = [line for line in function_lines(message, boards)
               if line.split(" is ", 1)[1].split()[0].rstrip(".") not in named]
    lines = [*pins, *signals]
    if not lines:
        lines = note_lines(message, notes)
    if not lines:
        lines = datasheet_lines(message, hardware)
    return lines


def contradiction(lines: Sequence[str], text: str) -> str | None:
    """Why the model's `text` contradicts the lookup lines (None when it does not, as far as can be told)."""
    stated = " ".join(lines)
    known, named = set(_PORT_PIN.findall(stated)), list(dict.fromkeys(_PORT_PIN.findall(text)))
    if any(line.startswith("Pin: ") for line in lines):
        stray = [p for p in named if p not in known]
        if stray:
            return f"it names {', '.join(stray)}, which the pin lookup did not give"
    elif known and named and not known & set(named):  # a note's pins: the model may add others, not only others
        return f"it names {', '.join(named)}, and the note says {', '.join(sorted(known))}"
    said = {h.lower() for h in _HEX.findall(text)}
    found = {h.lower() for h in _HEX.findall(stated)}
    if said and found and not said & found:
        return f"it names {', '.join(sorted(said))}, and the datasheet line says {', '.join(sorted(found))}"
    return None


def answer(lines: Sequence[str], text: str) -> tuple[str, list[str]]:
    """(the answer: the lookup lines, then the model's text unless it contradicts them; notes on what was
    left out). With no line the model's text is the answer as it is."""
    if not lines:
        return text, []
    why = contradiction(lines, text) if text else None
    if why is not None:
        shown = text if len(text) <= 200 else text[:200] + "..."
        return "\n".join(lines), [f"the model's answer was left out because {why}: {shown!r}"]
    return "\n".join([*lines, text] if text else lines), []
