"""An alias entry sets its fields without the frozen class's own constructor (a library's pin tables give tens of
entries a file): it is still a frozen value, built positionally or by keyword, with the same defaults, equality,
hash, copy and pickling."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from edge_agent.pins.sections import AliasEntry


def test_an_alias_entry_is_a_frozen_value_with_its_defaults() -> None:
    e = AliasEntry("nucleo-f401re", "red_led", "PA5", "nucleo-f401re.md", 41)
    assert (e.numbering, e.kind, e.heading) == ("native", "alias", "")
    same = AliasEntry(tag="nucleo-f401re", alias="red_led", value="PA5", source="nucleo-f401re.md", line=41,
                      numbering="native", kind="alias", heading="")
    assert e == same and hash(e) == hash(same)
    assert e != AliasEntry("nucleo-f401re", "red_led", "PA5", "nucleo-f401re.md", 41, kind="table")
    assert dataclasses.astuple(e) == ("nucleo-f401re", "red_led", "PA5", "nucleo-f401re.md", 41, "native", "alias", "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.value = "PA6"  # type: ignore[misc]
    moved = dataclasses.replace(e, value="PA6", heading="Pin Aliases")
    assert (moved.value, moved.heading, moved.alias) == ("PA6", "Pin Aliases", "red_led")
    assert pickle.loads(pickle.dumps(moved)) == moved
    assert repr(e).startswith("AliasEntry(tag='nucleo-f401re', alias='red_led', value='PA5'")
    with pytest.raises(TypeError):
        AliasEntry("nucleo-f401re", "red_led", "PA5")  # type: ignore[call-arg]
