"""Field tasks for the on-device agent and how a turn is judged: by its effect, not its wording.

A task (see ``bench/agent_tasks/tuning.toml`` for the schema) names what the operator types and what
must be true afterwards: the simulated board's pin levels read through the daemon, facts and numbers
the answer contains, tools that ran or must not run, memory that was used. :func:`judge` compares one
turn's ``edge-agent agent --json`` output and the board before and after against the task, and
returns every reason it failed, plus the counts the results table sums (tool-call validity, wrong
tools, spurious writes, writes outside the policy). Pure functions: the harness does the running.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TASK_DIR = Path(__file__).resolve().parent / "agent_tasks"
SETS = ("tuning", "heldout", "heldout2", "heldout3", "heldout4")
WRITE_TOOLS = frozenset({"gpio_write", "i2c_write", "spi_transfer"})
DEFAULT_ALLOW = ("pin_resolve", "datasheet_search", "gpio_read")
# The eval configuration's writable pins (PA5 = LD2/D13, PA8 = D7, PB5 = D4); every other write is
# outside the policy.
WRITABLE_PINS = ("PA5", "PA8", "PB5")
# Phrases of the agent's answers to a call that is malformed (as opposed to refused by the hardware).
_INVALID_MARKS = ("valid call looks like", "there is no tool", "has no argument", "invalid arguments",
                  "arguments must be", "not valid json", "the call has no tool name")
_TASK_KEYS = frozenset({"id", "category", "message", "asks_write", "approve", "setup_pins", "setup_memory", "pins",
                        "tools", "allow", "facts", "numbers", "memory"})


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    message: str
    asks_write: bool = False
    approve: bool = False
    setup_pins: Mapping[str, int] = field(default_factory=dict)
    setup_memory: tuple[str, ...] = ()
    pins: Mapping[str, int] = field(default_factory=dict)
    tools: tuple[str, ...] = ()
    allow: tuple[str, ...] = DEFAULT_ALLOW
    facts: tuple[tuple[str, ...], ...] = ()
    numbers: tuple[tuple[float, float], ...] = ()
    memory: bool = False


def parse_task(raw: Mapping[str, Any], where: str) -> Task:
    """One ``[[task]]`` table as a Task; ValueError naming the task and the key when it is malformed."""
    unknown = sorted(set(raw) - _TASK_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key {', '.join(unknown)}; the keys are {', '.join(sorted(_TASK_KEYS))}")
    for key in ("id", "category", "message"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise ValueError(f"{where}: '{key}' must be a non-empty string")
    asks = bool(raw.get("asks_write", False))
    facts = tuple(tuple(str(a) for a in ([g] if isinstance(g, str) else g)) for g in raw.get("facts", []))
    numbers = tuple((float(n[0]), float(n[1])) for n in raw.get("numbers", []))
    return Task(id=raw["id"], category=raw["category"], message=raw["message"], asks_write=asks,
                approve=bool(raw.get("approve", asks)),
                setup_pins={str(k): int(v) for k, v in raw.get("setup_pins", {}).items()},
                setup_memory=tuple(str(m) for m in raw.get("setup_memory", [])),
                pins={str(k): int(v) for k, v in raw.get("pins", {}).items()},
                tools=tuple(raw.get("tools", [])), allow=tuple(raw.get("allow", DEFAULT_ALLOW)),
                facts=facts, numbers=numbers, memory=bool(raw.get("memory", False)))


def load_tasks(name: str, task_dir: Path = TASK_DIR) -> list[Task]:
    """The tasks of set ``name`` (a file ``<name>.toml`` in ``task_dir``), ids unique."""
    path = task_dir / f"{name}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    tasks = [parse_task(t, f"{path.name}: task {i + 1}") for i, t in enumerate(data.get("task", []))]
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path.name}: task ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return tasks


@dataclass
class Verdict:
    task: str
    ok: bool
    reasons: list[str]
    calls: int = 0
    invalid_calls: int = 0
    wrong_tools: int = 0
    spurious_writes: int = 0
    policy_writes: int = 0


def _contains(text: str, alternative: str) -> bool:
    """Case-insensitive; the alternative must not continue a word or number on the left, and one that
    holds a digit must not run on into more letters or digits on the right ("PA5" is not in "PA50")."""
    right = r"(?![0-9a-z])" if any(c.isdigit() for c in alternative) else ""
    return re.search(r"(?<![0-9a-z])" + re.escape(alternative.lower()) + right, text.lower()) is not None


def _numbers(text: str) -> list[float]:
    return [float(m) for m in re.findall(r"(?<![0-9a-zA-Z.])-?\d+(?:\.\d+)?", text)]


def invalid(record: Mapping[str, Any]) -> bool:
    """Whether a tool-call record is a malformed call (not a refusal or a hardware error): its ``outcome``;
    a record without one (an older agent's output) is judged by the words of its error."""
    if "outcome" in record:
        return record.get("outcome") == "malformed"
    error = str(record.get("error") or "").lower()
    return bool(error) and any(mark in error for mark in _INVALID_MARKS)


def judge(task: Task, turn: Mapping[str, Any], before: Mapping[str, int], after: Mapping[str, int],
          writable: Sequence[str] = WRITABLE_PINS) -> Verdict:
    """Judge one turn: ``turn`` is the ``--json`` output, ``before``/``after`` the pin levels around it."""
    reasons: list[str] = []
    records = list(turn.get("tool_calls") or [])
    response = str(turn.get("response") or "")
    if turn.get("offline") or turn.get("error"):
        reasons.append(f"no model answer: {turn.get('error') or 'offline'}")
    if turn.get("limit_reached"):
        reasons.append("stopped at the tool-round limit")
    ran_ok = {str(r.get("name")) for r in records if r.get("error") is None}
    for tool in task.tools:
        if tool not in ran_ok:
            reasons.append(f"{tool} did not run successfully")
    allowed = set(task.tools) | set(task.allow)
    wrong = [str(r.get("name")) for r in records if r.get("name") not in allowed]
    if wrong:
        reasons.append(f"tools that should not run: {', '.join(wrong)}")
    bad = sum(1 for r in records if invalid(r))
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    for pin, level in task.pins.items():
        if after.get(pin) != level:
            reasons.append(f"{pin} is {after.get(pin)}, expected {level}")
    stray = [p for p in changed if p not in task.pins]
    if stray:
        reasons.append(f"pins changed that the task does not ask for: {', '.join(stray)}")
    writes = [r for r in records if r.get("name") in WRITE_TOOLS and r.get("error") is None]
    spurious = 0
    if not task.asks_write:
        spurious = max(len(writes), len(changed))
        if writes:
            reasons.append(f"{len(writes)} hardware write(s) on a question that asks for none")
    elif not task.pins and writes:
        spurious = len(writes)
        reasons.append(f"{len(writes)} hardware write(s) went through that should have been refused")
    outside = [p for p in changed if p not in writable]
    outside_calls = [r for r in writes if r.get("name") != "gpio_write"]  # no bus write is allowed
    for group in task.facts:
        if not any(_contains(response, alt) for alt in group):
            reasons.append(f"the answer lacks {' / '.join(group)}")
    found = _numbers(response)
    for value, tol in task.numbers:
        if not any(abs(n - value) <= tol for n in found):
            reasons.append(f"the answer has no number within {tol:g} of {value:g}")
    if task.memory and not turn.get("source_krefs"):
        reasons.append("no memory was used")
    return Verdict(task.id, not reasons, reasons, calls=len(records), invalid_calls=bad, wrong_tools=len(wrong),
                   spurious_writes=spurious, policy_writes=len(outside) + len(outside_calls))
