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
                 if v.outcome not in ("ok", "ok: ambiguous", "picked", "picked, noted", "board file's routing")]
        assert not wrong, wrong
