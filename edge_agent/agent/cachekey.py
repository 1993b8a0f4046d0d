"""What makes a response-cache key, and which turns the cache never answers.

A turn is answered from the cache only when everything that shapes the model's answer is the same.
The key is a SHA-256 (:func:`edge_agent.memory.response_cache.cache_key`) over three parts:

1. **who answers**: the model name, the base URL of the first provider of the chain (a password in
   it shown as ``***``) and the sampling temperature;
2. **what the model is told before the message**: the system prompt (it depends on the configured
   boards and the mode), the identity of the tools offered to this message (their names and a digest
   of each schema as sent, see :mod:`edge_agent.agent.toolset`) and, when tools are offered, how the
   provider takes them (native, or described in the prompt);
3. **the message and its context**: the user prompt, which holds the memory context engage returned
   (a message's own earlier exchanges left out), the hardware context (the pin aliases the message
   names and the datasheet chunks retrieved for it), today's date and the message as typed; in a
   chat, the history so far too, but only when the message refers back to it (it, that, again, why...).

So a new memory entry that engage returns for the message, a datasheet chunk that enters the
context, a changed pin alias, another model, server, temperature, board or mode, a changed tool
schema and the next day are misses; a memory entry about something else, or the message's own
earlier exchange, is not.

Never from the cache, and never into it:

- a message whose words ask for a change (turn, set, blink, write..., or an order with no such verb
  that names a pin and a level, "LD2 on": the words that decide whether a write tool is offered):
  whatever the model did last time, the operator is asking for it to happen now, and an answer
  replayed from the cache would claim a write that never ran;
- a turn that called a tool (or tried to): hardware state is live;
- a turn that failed (no answer, the round limit) or was answered by a fallback provider (the key
  names the first provider).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from edge_agent.agent.choice import CHANGE, asks_change

# Follow-up words: a message holding one depends on the chat so far, so its key includes the history.
REFERS_BACK = re.compile(r"\b(it|its|that|this|those|these|them|they|again|other|previous|same|above|before|"
                         r"last|else|also|too|more|why|then)\b", re.IGNORECASE)


@dataclass(frozen=True)
class CacheKey:
    """The three parts the cache hashes (see the module's description)."""

    provider: str
    system: str
    user: str


def make_key(*, provider: str, system_prompt: str, tools: str, mode: str | None, user_prompt: str,
             history: Sequence[dict[str, str]], message: str) -> CacheKey:
    """The key of a turn. `tools` is the identity of the offered tools ("" for none); `mode` how the
    provider takes them (None when no tool is offered)."""
    system = f"{system_prompt}\n[tools {tools or 'none'}]" + (f"\n[tool calls {mode}]" if tools and mode else "")
    user = user_prompt
    if history and REFERS_BACK.search(message):
        user = json.dumps(list(history), ensure_ascii=False) + "\n" + user_prompt
    return CacheKey(provider, system, user)


def asks_for_change(message: str) -> bool:
    """True when the message's words ask for something to change (then the cache is not used): a change
    verb anywhere, or an order with none that names a pin and a level or a thing a line drives."""
    return CHANGE.search(message or "") is not None or asks_change(message or "")
