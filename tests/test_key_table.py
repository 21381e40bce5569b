"""One key table in which a key means one thing (issue 44, Deliver 5): the key tables of every registered protocol
(and of one added by a test, tests/likert_protocol.py) are read together, and a key bound to two actions fails."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from likert_protocol import LIKERT, LIKERT_LEVELS

from parastudio.core.judging.desk import JudgingDesk
from parastudio.core.judging.keys import KEYS, KeyBinding, help_line, help_table, meanings, table_for, two_meanings
from parastudio.core.judging.protocols import PROTOCOLS
from parastudio.core.judging.protocols.protocol import JudgingProtocol
from parastudio.core.vocabulary import NO, PREFER_LEFT, PREFER_RIGHT, PREFER_TIE, YES

EVERY_PROTOCOL = [*PROTOCOLS.values(), LIKERT]


def sample_levels(protocol) -> list[tuple[dict, ...]]:
    """Scales a criterion of ``protocol`` may have: its own levels, or the kinds a researcher writes."""
    if protocol is LIKERT:
        return [LIKERT_LEVELS]
    if protocol.yes_no:
        return [({"value": YES}, {"value": NO})]
    if protocol.view == "pair":
        return [tuple({"value": v} for v in (PREFER_LEFT, PREFER_TIE, PREFER_RIGHT))]
    if protocol.view == "levels":
        return [tuple({"value": str(v)} for v in range(1, 6)), tuple({"value": str(v)} for v in range(0, 3)),
                tuple({"value": v} for v in ("bad", "fine", "good"))]
    return [()]


def test_no_key_means_two_things_across_every_protocol():
    assert two_meanings(EVERY_PROTOCOL) == []


def test_the_arrows_move_between_items_on_every_protocol():
    found = meanings(EVERY_PROTOCOL)
    for key, action in (("Left", "previous"), ("Up", "previous"), ("Right", "next"), ("Down", "next")):
        assert set(found[key]) == {action}
        assert sorted(found[key][action]) == sorted({p.name for p in EVERY_PROTOCOL})


def test_the_score_and_the_preference_have_keys_of_their_own():
    found = meanings(EVERY_PROTOCOL)
    for key in ("+", "-", "PgUp", "PgDown", "Home", "End"):
        assert set(found[key]) == {"adjust_score"}
    assert set(found["A"]) == {"prefer_left"} and set(found["B"]) == {"prefer_right"}
    assert set(found["E"]) == {"prefer_neither"}
    assert set(found["1"]) == {"answer_number"}  # a digit answers by number everywhere


def test_every_key_a_level_gives_is_in_its_protocols_table():
    for protocol in EVERY_PROTOCOL:
        table = {key for binding in table_for(protocol) for key in binding.keys}
        for levels in sample_levels(protocol):
            for index, level in enumerate(levels):
                assert set(protocol.level_keys(index, level)) <= table, (protocol.name, level)


def test_every_action_is_the_desks():
    for protocol in EVERY_PROTOCOL:
        for binding in table_for(protocol):
            assert callable(getattr(JudgingDesk, binding.action, None)), (protocol.name, binding.action)


def test_a_protocol_whose_key_means_something_else_elsewhere_is_caught():
    """The check breaks when it should: Likert's first keys, Q W E R T, give E and T two meanings."""

    @dataclass(frozen=True)
    class Clashing(JudgingProtocol):
        def key_table(self):
            return (KeyBinding(tuple("QWERT"), "answer_level", "level", self.view),)

    said = two_meanings([*PROTOCOLS.values(), Clashing("qwert")])
    assert sorted(line.split(":")[0] for line in said) == ["E", "T"]
    assert any("start_custom (choice)" in line and "answer_level (qwert)" in line for line in said)
    # and a protocol that moves the arrows (the old DA) is caught as well
    moving = JudgingProtocol("old-da", view="score")
    object.__setattr__(moving, "key_table", lambda: (KeyBinding(("Left", "Right"), "adjust_score", "±1", "score"),))
    assert sorted(line.split(":")[0] for line in two_meanings([*PROTOCOLS.values(), moving])) == ["Left", "Right"]


@pytest.mark.parametrize("protocol", EVERY_PROTOCOL, ids=lambda p: p.name)
def test_the_help_is_written_from_the_table(protocol):
    line, table = help_line(protocol), help_table([protocol])
    for binding in table_for(protocol):
        assert binding.shown.split(" / ")[0].replace("<", "&lt;") in line
        assert binding.label.strip("◀▶ ") in table
    assert all(b.label.strip("◀▶ ") in help_table([]) for b in KEYS if b.scope == "any")


def test_f1_shows_the_key_table_of_the_studys_protocols(tmp_path):
    pytest.importorskip("PySide6")
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database
    from parastudio.desktop.instructions import instructions_html

    db = open_database(tmp_path / "s.sqlite", create=True)
    study = ops.create_study(db, "s", criteria=["meaning", "preference", "da"], seed=1)
    shown = instructions_html(db, study)
    assert shown.index("<h3>Keys</h3>") > 0
    assert shown.count(help_table([PROTOCOLS["binary"], PROTOCOLS["preference"], PROTOCOLS["da"]])) == 1
    for written in ("Left is better", "record the score", "score +10", "yes"):
        assert written in shown
    assert "mark minor" not in shown  # the study has no error spans
