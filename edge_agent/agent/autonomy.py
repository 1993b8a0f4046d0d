"""How far the agent may act on its own: ``[autonomy] level`` and the hourly cap on actions.

- ``readonly``: no tool call that changes state runs; the refusal goes back to the model.
- ``supervised`` (the default): each state-changing call is shown to the operator (the exact write:
  pin as asked, pin as resolved, value) and runs only after a yes. A one-shot has nobody to ask, so
  it refuses the call unless the operator passed ``--yes``.
- ``full``: state-changing calls run without asking.

Under every level the ``[hardware.safety]`` policy still applies, and at most
``max_actions_per_hour`` state-changing calls run per hour across all agent processes of the state
directory (they are counted in ``<state>/agent/agent.db``). Each refusal is a
:class:`~edge_agent.errors.RefusedError` (:class:`~edge_agent.errors.ApprovalNeededError` when only
nobody could be asked) whose message, for the model, says why and what would allow it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from edge_agent.errors import ApprovalNeededError, RefusedError
from edge_agent.hub import STATE_CHANGING

HOUR_S = 3600.0


@dataclass
class WriteRequest:
    """A state-changing call waiting for the operator: what it would do, in words."""

    tool: str
    arguments: dict[str, Any]
    description: str


Confirm = Callable[[WriteRequest], bool]


class Ledger(Protocol):
    def actions_since(self, seconds: float) -> int: ...

    def note_action(self, tool: str) -> None: ...


class Autonomy:
    """The autonomy decision for one agent: level, hourly cap, and who can say yes."""

    def __init__(self, level: str, max_per_hour: int, ledger: Ledger | None, *, confirm: Confirm | None = None,
                 approved: bool = False) -> None:
        self.level, self.max_per_hour, self.ledger = level, max_per_hour, ledger
        self.confirm, self.approved = confirm, approved

    def check(self, tool: str, arguments: dict[str, Any], describe: Callable[[], str]) -> None:
        """Return when the call may run now; else raise RefusedError (ApprovalNeededError when the operator's
        yes is needed and nobody can be asked) with the sentence for the model."""
        if tool not in STATE_CHANGING:
            return
        if self.level == "readonly":
            raise RefusedError(f"not run: {tool} changes state and [autonomy] level is \"readonly\", so the agent "
                               "may only read. Tell the operator what you would change instead.")
        if self.ledger is not None and self.ledger.actions_since(HOUR_S) >= self.max_per_hour:
            raise RefusedError(f"not run: the agent already ran {self.max_per_hour} state-changing calls in the "
                               "last hour ([autonomy] max_actions_per_hour). Tell the operator; do not retry.")
        if self.level == "supervised" and not self.approved:
            what = describe()
            if self.confirm is None:
                raise ApprovalNeededError(
                    f"not run: {what} needs the operator's approval ([autonomy] level = \"supervised\") and "
                    "nobody can be asked in a one-shot. Tell the operator to rerun with --yes, or to use "
                    "the chat, which asks before each write.")
            if not self.confirm(WriteRequest(tool, dict(arguments), what)):
                raise RefusedError(f"not run: the operator declined {what}. Do not retry it; ask what they want "
                                   "instead.")

    def ran(self, tool: str) -> None:
        """Count a state-changing call that ran (for the hourly cap)."""
        if tool in STATE_CHANGING and self.ledger is not None:
            self.ledger.note_action(tool)
