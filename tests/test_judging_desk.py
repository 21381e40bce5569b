"""A key goes one way down (issue 28, Deliver 3): the Qt-free judging desk reads each key press (as text) against
the item shown and says what to record and what is shown. Real SQLite studies of every scale, no Qt."""

from __future__ import annotations

import json

import pytest
from desktop_study_fixtures import candidate_rows, make_choice_study

from parastudio.core.judging.desk import JudgingDesk, open_desk
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE


def desk_on(tmp_path, criteria, name="study") -> JudgingDesk:
    db = open_database(tmp_path / f"{name}.sqlite", create=True)
    study = ops.create_study(db, name, criteria=list(criteria), seed=4)
    ops.import_candidates(db, study, candidate_rows())
    ops.assign(db, study, ["ann"])
    return open_desk(db, study, "ann").desk


def first_of(desk: JudgingDesk, scale: str) -> None:
    """Walk (with the arrow keys) to the first item of ``scale``."""
    for _ in range(200):
        if desk.item.scale == scale:
            return
        desk.press("Right")
    raise AssertionError(f"no {scale} item")


def test_yes_no_keys_answer_and_keys_of_another_scale_are_refused_with_a_word(tmp_path):
    desk = desk_on(tmp_path, ["meaning"])
    shown = desk.item
    for key, value in (("Y", "yes"), ("N", "no"), ("1", "yes"), ("0", "no"), ("Shift+Y", "yes")):
        outcome = desk.press(key)
        assert outcome.record is not None and (outcome.record.kind, outcome.record.value) == ("answer", value), key
        assert outcome.record.assignment_id == shown.assignment_id and outcome.moved
        assert desk.item.assignment_id != shown.assignment_id  # the next item is shown
        shown = desk.item
    refused = desk.press("3")
    assert refused.record is None and refused.status.startswith("3 is not an answer to this question: press ")
    assert set(refused.status.rsplit("press ", 1)[1].split(" / ")) == {"Y", "1", "N", "0"}
    assert desk.item is shown
    assert not desk.press("Ctrl+Y").handled and desk.press("Ctrl+Y").record is None  # to the window's shortcuts


def test_a_three_point_item_takes_its_digits_only(tmp_path):
    desk = desk_on(tmp_path, ["usability"])
    levels = [level.value for level in desk.view.levels]
    assert len(levels) == 3
    refused = desk.press("Y")
    assert refused.record is None and refused.status.startswith("Y is not an answer")
    item = desk.item
    outcome = desk.press(levels[1])
    assert (outcome.record.assignment_id, outcome.record.value) == (item.assignment_id, levels[1])


def test_choice_keys_preview_then_accept_original_and_custom(tmp_path):
    path = tmp_path / "choice.sqlite"
    study = make_choice_study(path)
    desk = open_desk(open_database(path), study, "ann").desk
    item = desk.item
    picked = desk.press("2")
    assert picked.record is None and desk.preview.value == "option:2" and desk.preview.text == item.options[1]
    assert desk.press("9").record is None and desk.preview.value == "option:2"  # no such option: the pick stays
    accepted = desk.press("Return")
    assert (accepted.record.value, accepted.record.text) == ("option:2", item.options[1]) and accepted.moved
    assert desk.press("Return").record is None  # nothing previewed: Enter records nothing
    second = desk.item
    desk.press("O")
    assert desk.preview.value == "original" and desk.preview.text is None
    assert desk.press("A").record is None and desk.preview.value == "original"  # A is the preference's left
    desk.press("2")
    desk.press("0")  # a digit answers by number: 0 the original
    assert desk.preview.value == "original"
    kept = desk.press("Enter")
    assert (kept.record.assignment_id, kept.record.value, kept.record.text) == (second.assignment_id, "original",
                                                                                None)
    assert desk.press("T").command == "start_custom"
    custom = desk.answer("custom", "my own words")
    assert (custom.record.value, custom.record.text) == ("custom", "my own words")


def test_preference_keys_answer_and_the_arrows_move(tmp_path):
    desk = desk_on(tmp_path, ["preference"])
    answers = []
    for key in ("A", "B", "E", "1", "3", "2"):
        item = desk.item
        if item is None:
            break
        outcome = desk.press(key)
        assert outcome.record.assignment_id == item.assignment_id
        answers.append(outcome.record.value)
    assert answers == [PREFER_LEFT, PREFER_RIGHT, PREFER_TIE, PREFER_LEFT][:len(answers)]
    assert desk.item is None  # all four judged
    assert desk.press("Left").record is None and desk.item.value == PREFER_LEFT  # ← goes back, answer shown
    last = desk.item
    for key, value in (("B", PREFER_RIGHT), ("E", PREFER_TIE)):
        outcome = desk.press(key)  # a new key replaces the answer
        assert (outcome.record.assignment_id, outcome.record.value) == (last.assignment_id, value)
        desk.press("Up")
    shown = desk.item
    for key in ("Left", "Right", "Up", "Down"):  # the arrows move and never answer
        assert desk.press(key).record is None
    assert desk.item.assignment_id == shown.assignment_id


def test_direct_assessment_keys_move_the_score_and_enter_records_it(tmp_path):
    desk = desk_on(tmp_path, ["da"])
    item = desk.item
    assert desk.press("Return").record is None and desk.item is item  # no score yet: nothing recorded
    steps = []
    for key in ("+", "PgUp", "PgDown", "-", "7", "Shift++", "End", "Home", "4"):
        assert desk.press(key).record is None
        steps.append(desk.score)
    assert steps == [51, 61, 51, 50, 70, 71, 100, 0, 40]
    outcome = desk.press("Return")
    assert (outcome.record.assignment_id, outcome.record.value, outcome.record.text) == (item.assignment_id, "40",
                                                                                         None)
    assert desk.score is None  # the next item starts unscored
    second = desk.item
    assert desk.press("Right").record is None and desk.item.assignment_id != second.assignment_id  # → moves on
    assert desk.press("Left").record is None and desk.item.assignment_id == second.assignment_id


def test_error_span_keys_mark_then_score_then_record_both(tmp_path):
    desk = desk_on(tmp_path, ["esa"])
    item = desk.item
    words = (item.candidate or "").split()
    assert len(words) >= 5
    for key in ("Ctrl+Right", "Ctrl+Shift+Right", "M", "Ctrl+Right", "J", "Backspace"):
        assert desk.press(key).record is None and not desk.scoring
    assert desk.marking.spans == [{"start": 1, "end": 3, "severity": "minor"}]
    desk.press("Return")
    assert desk.scoring
    desk.press("8")
    desk.press("Esc")
    assert not desk.scoring and desk.score == 80  # back to marking keeps the score
    desk.press("Ctrl+Right")
    desk.press("J")
    desk.press("PgUp")  # a score key goes on to the score
    assert desk.scoring and desk.score == 90
    outcome = desk.press("Return")
    assert outcome.record.value == "90" and outcome.record.assignment_id == item.assignment_id
    assert json.loads(outcome.record.text) == [{"start": 1, "end": 3, "severity": "minor"},
                                               {"start": 4, "end": 5, "severity": "major"}]
    assert desk.press("Left").record is None and desk.item.assignment_id == item.assignment_id  # ← goes back


def test_flag_comment_undo_and_moves_are_what_the_keys_say(tmp_path):
    desk = desk_on(tmp_path, ["meaning"])
    item = desk.item
    flagged = desk.press("F")
    assert flagged.record is None and flagged.status == "the flag is saved with your answer"
    assert desk.press("C").command == "start_comment"
    desk.set_comment("unclear")
    answer = desk.press("N").record
    assert (answer.flag, answer.comment, answer.value) == (True, "unclear", "no")
    desk.press("Left")
    assert desk.item.assignment_id == item.assignment_id and desk.item.value == "no"
    unflag = desk.press("F").record  # answered: written now
    assert (unflag.kind, unflag.assignment_id, unflag.flag) == ("annotate", item.assignment_id, False)
    undo = desk.press("Ctrl+Z")
    assert undo.record.kind == "undo" and undo.status == "undoing the last answer…"
    reopened = desk.undone(item.assignment_id)
    assert reopened.status == "last answer undone" and desk.item.assignment_id == item.assignment_id
    assert desk.item.value is None
    assert desk.undone(None).status == "nothing to undo"


@pytest.mark.parametrize("refusal", ["nobody", "taken"])
def test_opening_refuses_an_unknown_judge_and_a_second_session_and_leaves_no_lock(tmp_path, refusal):
    from parastudio.core.store import session_lock

    db = open_database(tmp_path / "s.sqlite", create=True)
    study = ops.create_study(db, "s", criteria=["meaning"], seed=1)
    ops.import_candidates(db, study, candidate_rows())
    ops.assign(db, study, ["ann"])
    if refusal == "nobody":
        with pytest.raises(LookupError):
            open_desk(db, study, "carol")
        return
    first = open_desk(db, study, "ann")
    with pytest.raises(session_lock.SessionTaken):
        open_desk(db, study, "ann")
    session_lock.release(db, first.lock)
    assert open_desk(db, study, "ann").desk.item is not None  # released: a new session opens


def test_mqm_keys_mark_errors_with_categories_and_record_their_score(tmp_path):
    desk = desk_on(tmp_path, ["mqm"])
    item = desk.item
    assert len((item.candidate or "").split()) >= 5 and desk.errors is not None
    for key in ("Ctrl+Right", "Ctrl+Shift+Right", "5", "M", "Ctrl+Right", "6", "M", "J"):
        assert desk.press(key).record is None
    assert [(e["start"], e["end"], e["category"], e["severity"]) for e in desk.errors.errors] == [
        (1, 3, "Fluency/Grammar", "minor"), (3, 4, "Fluency/Punctuation", "minor"),
        (3, 4, "Fluency/Punctuation", "major")]
    desk.press("Backspace")  # word 3: both its errors go
    desk.press("Ctrl+Right")
    desk.press("6")
    desk.press("M")
    assert desk.press("N").record is None and len(desk.errors.errors) == 2  # N is "no", not a mark, on MQM
    desk.press("Ctrl+Left")
    desk.press("K")  # neutral: marked, no points
    assert [e["severity"] for e in desk.errors.errors if (e["start"], e["end"]) == (3, 4)] == ["neutral"]
    desk.press("Ctrl+Right")
    outcome = desk.press("Return")
    assert outcome.record.value == "-1.1" and outcome.record.assignment_id == item.assignment_id
    assert json.loads(outcome.record.text) == [
        {"start": 1, "end": 3, "category": "Fluency/Grammar", "severity": "minor"},
        {"start": 3, "end": 4, "category": "Fluency/Punctuation", "severity": "neutral"},
        {"start": 4, "end": 5, "category": "Fluency/Punctuation", "severity": "minor"}]
    # The store takes the answer as the desk gives it, and refuses a score that is not its errors'.
    db = desk.session.db
    ops.record_judgment(db, item.assignment_id, outcome.record.value, text=outcome.record.text)
    with pytest.raises(ValueError, match="-1.1 for these"):
        ops.record_judgment(db, item.assignment_id, "-2", text=outcome.record.text)
    x = desk.press("X")
    assert x.record is None and desk.press("Return").record.value == "-25"
