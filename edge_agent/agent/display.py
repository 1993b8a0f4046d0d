"""What the operator sees of a reply while it streams.

A reply's text is shown as it streams through a :class:`~edge_agent.agent.parsing.StreamFilter`
(which holds back reasoning and call markup); a reply after tool calls is held and shown once the
answer is written from the results; a retried request ends any half-shown text first.
"""

from __future__ import annotations

from collections.abc import Callable

from edge_agent.agent.parsing import StreamFilter

OnToken = Callable[[str], None]


def hold(_text: str) -> None:
    """Where a reply's text goes while it streams when it is shown only once complete."""


def filtered(shown: StreamFilter | None, on_token: OnToken | None) -> OnToken | None:
    """The streaming callback that shows what the filter lets through (None: nothing is shown)."""
    if shown is None or on_token is None:
        return None

    def feed(delta: str) -> None:
        if text := shown.feed(delta):
            on_token(text)

    return feed


def restart(shown: StreamFilter | None, on_token: OnToken | None) -> OnToken:
    """Before a retried request: end any half-shown streamed text and start the display afresh."""

    def restart(_reason: str) -> None:
        if shown is not None and on_token is not None:
            if shown.shown:
                on_token(" [connection lost, retrying]\n")
            shown.raw = shown.shown = ""

    return restart
