"""The answer step of a turn: the words that ask for an answer, and the answer the turn returns.

- the model answered: memory references are dropped, and after tools ran the answer starts with
  what they did, stated from their results, keeping the model's words only when they do not
  contradict them (:mod:`edge_agent.agent.facts`);
- the model gave no answer (it went round in circles, the server could not parse its output, it
  gave none when asked): the answer is written from the tool results themselves;
- the round limit was reached: the answer says so and what the tools did.

The texts the loop sends to ask for an answer, or for the call an action needs, are here too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from edge_agent.agent import facts, lookup
from edge_agent.agent.parsing import StreamFilter
from edge_agent.agent.records import summarize
from edge_agent.agent.turn import TurnResult

FINAL_AFTER_TOOLS = ("Now answer my message in plain text, in one to three sentences, from the tool results above: "
                     "say what was done and what was found. Do not call a tool.")
FINAL_NO_TOOLS = "Now answer my message above in plain text."
CALL_NOW = ("That is not a tool result. Call the tool ({tools}) now, with only the call in your reply; "
            "answer after its result.")
# A reply that tried to be a call and could not be read: no tool named "" (or "invalid") ever goes
# into the conversation, where a small model would copy it as a tool name.
UNREADABLE = ("Nothing ran: your reply was not a tool call I could read ({error}). Write the call alone as "
              '{{"name": "<tool>", "arguments": {{...}}}} with one of: {tools}; or answer in plain text.')
# A reply that declines instead of reporting (small models answer a bare "answer now" this way).
REFUSAL = re.compile(r"^\W*(i'?m sorry|i am sorry|sorry,? i|i can(no|'|’)t|i cannot|i'?m unable|i am unable|"
                     r"as an ai)\b", re.IGNORECASE)
MEM_REF = re.compile(r"[ \t]*\(?\bmem://[^\s)\],;]+\)?")
# The message line's date stamp, copied by a small model to the start of its answer ("[2026-11-28] Adieu.").
STAMP = re.compile(r"^\s*\[\d{4}-\d{2}-\d{2}\]\s*")

OnToken = Callable[[str], None]


def final_request(result: TurnResult) -> str:
    """The message that asks for the answer now."""
    return FINAL_AFTER_TOOLS if result.tool_calls else FINAL_NO_TOOLS


def unchecked(visible: str, tools: Sequence[str]) -> str:
    """The words of a model that answered an action without calling its tool (asked to, and still not)."""
    return (f"(No tool ran, so nothing was read or changed: the model answered without calling "
            f"{' or '.join(tools)}. Its words, unchecked:) {visible}")


def answered(result: TurnResult, visible: str, shown: StreamFilter | None, on_token: OnToken | None,
             labels: Mapping[str, str], looked_up: Sequence[str] = (), held: bool = False) -> TurnResult:
    """The turn answered with the model's `visible` text (shown now unless it streamed already);
    `looked_up` are a lookup's answer lines (:mod:`edge_agent.agent.lookup`); `held`: the reply was not
    shown while it streamed."""
    # Memory references are bookkeeping (source_krefs has them), not part of an answer.
    text = STAMP.sub("", MEM_REF.sub("", visible)).strip() or visible
    # After tools ran, what they did is stated from their results, before the model's words
    # (which are left out when they contradict the results): see edge_agent.agent.facts. A lookup's
    # answer is stated the same way from what it found.
    if result.tool_calls:
        result.response, left_out = facts.answer(result.tool_calls, text, labels)
    else:
        result.response, left_out = lookup.answer(looked_up, text)
    result.notes += left_out
    if on_token is not None and (result.tool_calls or looked_up or held):  # held while it streamed (see rounds)
        on_token(result.response)
    elif shown is not None and on_token is not None and (rest := shown.finish(visible)):
        on_token(rest)
    return result


def _what_ran(result: TurnResult, labels: Mapping[str, str]) -> str:
    return "\n".join(facts.facts(result.tool_calls, labels)) or summarize(result.tool_calls)


def composed(result: TurnResult, on_token: OnToken | None, why: str, labels: Mapping[str, str]) -> TurnResult:
    """The turn's answer written from the tool results, when the model gives none."""
    summary = _what_ran(result, labels)
    if summary:
        result.response = f"({why}; what the tools did:)\n{summary}"
    else:
        result.response = f"The model gave no answer ({why})."
        result.answered = False
    if on_token is not None:
        on_token(result.response)
    return result


def limit_reached(result: TurnResult, max_rounds: int, on_token: OnToken | None,
                  labels: Mapping[str, str]) -> TurnResult:
    """The turn stopped at ``max_tool_iterations`` rounds: say so, and what the tools did."""
    result.limit_reached = True
    result.answered = False
    result.response = (f"Stopped: the model still wanted to call tools after {result.rounds} rounds "
                       f"(max_tool_iterations = {max_rounds}). Ask again more specifically, "
                       "or raise [agent] max_tool_iterations.")
    if summary := _what_ran(result, labels):
        result.response += "\nWhat the tools did:\n" + summary
    if on_token is not None:
        on_token(result.response)
    return result
