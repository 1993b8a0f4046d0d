"""What every section model shares: unknown keys are errors, and the small checks their validators use."""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict


def _checked(value: str, problem: Callable[[str], str | None]) -> str:
    """``value`` when ``problem`` finds nothing wrong with it; else the ValueError that names the key."""
    why = problem(value)
    if why:
        raise ValueError(why)
    return value


def _each_matches(items: list[str], pattern: str, problem: str) -> list[str]:
    """``items`` when each one (stripped) fully matches ``pattern``; else the ValueError ``'<item>' <problem>``."""
    for item in items:
        if not re.fullmatch(pattern, item.strip()):
            raise ValueError(f"{item!r} {problem}")
    return items


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
