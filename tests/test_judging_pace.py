"""A judge's pace, breaks and own list without Qt (issue 44 items 1-3): the sitting's counts and median, when a
break is due (by answers, by judging minutes, reset by an absence or a dismissal), the pace settings' checks, the
sittings and blocks the Dashboard shows, the own list's reasons; on PostgreSQL, a judge's own login reads its own
list, its own times and the pace setting, and nothing of another judge."""

from __future__ import annotations

import statistics
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.judging.own_list import listed, own_list
from parastudio.core.judging.pace import AWAY_MINUTES, Pace, PaceSettings, Sitting, judge_paces
from parastudio.core.stats.judging_pace import PaceBlocks, TimedAnswer, duration_text, median_seconds, pace_table
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


def test_a_sitting_counts_answers_and_says_the_time_left_at_the_judges_median():
    sitting = Sitting(PaceSettings(break_minutes=0, break_items=0), earlier_ms=[9000, 1000], started=0.0)
    assert sitting.median_s() == 5.0  # the answers before the sitting count in the pace, not in its items
    for at, ms in ((4.0, 4000), (7.0, 3000), (10.0, 2000)):
        assert not sitting.answered(ms, at)
    assert sitting.items == 3 and sitting.median_s() == 3.0  # 1, 2, 3, 4, 9 s
    assert sitting.pace(20).text() == "this sitting: 3 · 3.0 s per item · about 1 min left"
    sitting.undone()
    assert sitting.items == 2
    assert Pace(0, None, 5).text() == "this sitting: 0 · pace after your first answer"
    assert Pace(4, 2.0, 0).text().endswith("nothing left")
    assert sitting.summary(70.0) == {"seconds": 70.0, "judging_seconds": 9.0, "answers": 2, "break_reminders": 0,
                                     "breaks": 0}


@given(st.lists(st.integers(min_value=0, max_value=600_000), max_size=40),
       st.lists(st.integers(min_value=0, max_value=600_000), max_size=40))
def test_the_sittings_median_is_the_median_of_every_timed_answer(earlier, now):
    assume(earlier or now)
    sitting = Sitting(PaceSettings(break_minutes=0, break_items=0), earlier_ms=earlier)
    for index, ms in enumerate(now):
        sitting.answered(ms, float(index))
    assert sitting.median_s() == pytest.approx(statistics.median(earlier + now) / 1000)
    assert median_seconds([*earlier, None, *now]) == pytest.approx(statistics.median(earlier + now) / 1000)


def test_a_break_is_due_after_the_studys_answers_and_a_dismissal_starts_a_new_stretch():
    sitting = Sitting(PaceSettings(break_minutes=45, break_items=3))
    assert [sitting.answered(1000, float(t)) for t in (1, 2, 3)] == [False, False, True]
    assert sitting.break_due and sitting.reminders == 1 and sitting.stretch_items == 3
    sitting.break_over(4.0)
    assert not sitting.break_due and sitting.breaks == 1 and sitting.stretch_items == 0
    assert [sitting.answered(1000, float(t)) for t in (5, 6, 7)] == [False, False, True]
    assert sitting.reminders == 2 and sitting.items == 6


def test_a_break_is_due_after_the_studys_judging_minutes_and_an_absence_counts_as_one():
    sitting = Sitting(PaceSettings(break_minutes=1, break_items=0))
    assert not sitting.answered(30_000, 30.0)
    assert sitting.answered(30_000, 60.0)  # a minute of the judging clock
    sitting.break_over(61.0)
    assert not sitting.answered(50_000, 111.0)
    # Away for AWAY_MINUTES between two answers (not judging): that was a break; the stretch starts again.
    later = 111.0 + AWAY_MINUTES * 60 + 20.0
    assert not sitting.answered(20_000, later) and sitting.breaks == 2 and sitting.stretch_minutes == pytest.approx(1 / 3)
    no_rule = Sitting(PaceSettings(break_minutes=0, break_items=0))
    assert not any(no_rule.answered(600_000, float(t)) for t in range(300))


def test_pace_settings_are_checked_and_read_from_the_study():
    assert PaceSettings.of_study({}) == PaceSettings(45.0, 200, 2.0)
    assert PaceSettings.of_study({"pace": {"break_items": 50, "other": 1}}) == PaceSettings(45.0, 50, 2.0)
    for bad in ({"break_minutes": -1}, {"break_minutes": float("nan")}, {"break_items": 2.5}, {"break_items": True},
                {"fast_seconds": "3"}, {"fast_seconds": 4000}):
        with pytest.raises(ValueError):
            PaceSettings(**bad)
    assert PaceSettings(30, 0).rule_text() == "after 30 minutes of judging"
    assert PaceSettings(0, 0).rule_text() == "never"


def test_sittings_blocks_and_the_dashboards_table():
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    answers = [TimedAnswer(start + timedelta(seconds=10 * i), 1000 * (i + 1)) for i in range(5)]
    answers += [TimedAnswer(start + timedelta(hours=2, seconds=10 * i), 2000 if i < 2 else 6000) for i in range(4)]
    pace = PaceBlocks(block_size=2, sitting_gap_minutes=30)
    sittings = pace.sittings(reversed(answers))
    assert [len(s) for s in sittings] == [5, 4]
    assert pace.blocks(sittings[0]) == [1.5, 3.5, 5.0] and pace.blocks(sittings[1]) == [2.0, 6.0]
    table = pace_table({"ann": answers, "bob": answers[:3], "eve": []}, pace)
    assert [c.name for c in table.columns] == ["block", "answers", "ann", "bob"]
    assert table.rows == [[1, "1–2", 2.0, 1.5], [2, "3–4", 6.0, 3.0]]
    assert "block:2" in table.signature and "judges:2" in table.signature
    with pytest.raises(ValueError):
        PaceBlocks(block_size=0)
    assert [duration_text(s) for s in (None, 40, 720, 3900)] == ["–", "40 s", "12 min", "1 h 05 min"]


def item(position, value=None, *, flag=False, comment=None, ms=None):
    return ops.OwnItem(position, position, "fluency", value, None, flag, comment, ms, f"text {position}")


def test_the_own_list_names_flagged_commented_skipped_and_fast_items():
    items = [item(0, "yes", flag=True, ms=9000), item(1), item(2, "no", comment="odd", ms=500), item(3, "yes", ms=5000),
             item(4)]
    rows = listed(items, fast_seconds=2)
    assert [(r.number, r.reasons) for r in rows] == [(1, ("flagged",)), (2, ("skipped",)), (3, ("commented", "fast"))]
    assert listed([item(0), item(1)], 2) == []  # nothing answered: nothing skipped yet


@pytest.fixture
def pg_study(postgres_url):
    tag = uuid.uuid4().hex[:6]
    names = [f"j1_{tag}", f"j2_{tag}"]
    db = open_database(postgres_url, create=True)
    study_id = ops.create_study(db, "long", criteria=("fluency",))
    rows = [ops.CandidateRow(sentence_id=str(i), text=f"{system} {i}", system=system, source=f"source {i}")
            for i in range(3) for system in ("sys-alpha", "sys-beta")]
    ops.import_candidates(db, study_id, rows)
    ops.assign(db, study_id, names)
    urls = [ops.invite(db, study_id, "long", name, "judge").url for name in names]
    try:
        yield db, study_id, names, urls, postgres_url
    finally:
        for name in names:
            ops.revoke(db, study_id, name)
        db.close()


def test_a_judges_own_login_reads_its_own_list_times_and_the_pace_setting_only(pg_study, capsys):
    db, study_id, names, urls, owner_url = pg_study
    assert main(["study", "pace", "--db", owner_url, "--break-items", "7", "--fast-seconds", "3"]) == 0
    for url, flag in zip(urls, (True, False)):
        with open_database(url) as judge:
            [membership] = ops.connection_membership(judge).values()
            first = ops.next_item(judge, membership.annotator_id)
            ops.record_judgment(judge, first.assignment_id, "yes", flag=flag, duration_ms=1000)
    with open_database(urls[1]) as judge:
        [membership] = ops.connection_membership(judge).values()
        me = membership.annotator_id
        assert PaceSettings.of_study(ops.study_settings(judge, study_id)) == PaceSettings(45.0, 7, 3.0)
        items = ops.own_items(judge, me)
        assert len(items) == len(ops.own_items(db, me)) and {i.value for i in items} == {"yes", None}
        rows = own_list(judge, me, 3.0)
        assert [r.reasons for r in rows] == [("fast",)]  # not the other judge's flag
        other = next(a for a in ops.annotators_of(db, study_id) if a != me)
        assert ops.own_items(judge, other) == []  # the server gives no row of another judge
        assert list(ops.answer_times(judge, study_id)) == [me]
    paces = {p.name: p for p in judge_paces(db, study_id)}
    assert {p.judged for p in paces.values()} == {1} and all(p.median_s == 1.0 for p in paces.values())
    assert "break reminder: after 45 minutes of judging or 7 answers" in capsys.readouterr().out
