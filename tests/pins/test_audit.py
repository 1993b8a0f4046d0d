"""Every name the datasheets write beside a pin resolves to that pin (bench/pin_audit.py walks both datasheet
directories: pin-table rows, bus tables, Pin Aliases lines, board files' numbers and header positions, and each
of those names in other case and separators). A name that means several pins must be refused listing the row's
pin; a bus signal the board file routes elsewhere answers with the board file's pin (it is the authority)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import pin_audit  # noqa: E402

#: Classes the pin index must answer whole: names in name columns, header positions, numbers, bus roles in
#: every spelling, alias lines, and the same names typed another way.
WHOLE = frozenset({"alias line", "header position", "board number", "bus role", "bus role spelling",
                   "bus role synonym", "table name", "spelling variant"})


def test_every_name_written_beside_a_pin_resolves_to_it(shared_corpus: Path) -> None:
    verdicts = pin_audit.run()
    assert set(verdicts) == {"bundled", "shared"}
    for corpus, found in verdicts.items():
        whole = [v for v in found if v.claim.cls in WHOLE]
        assert len(whole) > (4000 if corpus == "shared" else 2000), Counter(v.claim.cls for v in found)
        wrong = [f"{v.claim.board}: {v.claim.name!r} ({v.claim.where}, {v.claim.cls}): {v.outcome} {v.got}, "
                 f"the line says {v.claim.pin}" for v in whole
                 if v.outcome not in ("ok", "ok: ambiguous", "picked", "picked, noted", "board file's routing",
                                     "board file's routing, noted")]
        assert not wrong, wrong


def test_an_ambiguity_whose_choice_gives_another_pin_is_refused(tmp_path: Path) -> None:
    from edge_agent.errors import AmbiguousPinError
    from edge_agent.pins import Pin, PinIndex
    from edge_agent.rag import pin_index_for

    class Misleading(PinIndex):
        def resolve(self, board: str, name: str | int) -> Pin:
            if name == "BUS":  # offers PB8's name for PB9
                raise AmbiguousPinError(board, "BUS", ["PB8", "PB9"], choices=[("PB8", "PB8"), ("PB8", "PB9")])
            return super().resolve(board, name)

    index = Misleading(pin_index_for(tmp_path).entries)
    claim = pin_audit.Claim("nucleo-f401re", "BUS", "PB9", "probe", "table name")
    assert [v.outcome for v in pin_audit.audit(index, [claim])] == ["refused"]
    plain = pin_audit.Claim("nucleo-f401re", "I2C SDA", "PB9", "probe", "table name")  # one I2C bus: PB9
    assert [v.outcome for v in pin_audit.audit(index, [plain])] == ["ok"]
