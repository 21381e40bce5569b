"""Every annotator name in one query (issue 28 Found 9: the app asked once per study, an N+1 query)."""

from __future__ import annotations

from sqlalchemy import event

from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_queries import annotator_names, every_annotator_name, study_summaries
from parastudio.core.store.database import open_database


def test_every_annotator_name_in_one_query_as_the_study_by_study_loop_gave_them(tmp_path):
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        for name, judges in (("first", ["zoe", "ann"]), ("second", ["bob", "ann"]), ("third", ["cy"])):
            study = ops.create_study(db, name, criteria=("meaning",))
            ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="0", text="a b", system="x", source="a")])
            ops.assign(db, study, judges)
        looped: list[str] = []
        for summary in study_summaries(db):
            looped += [n for n in annotator_names(db, summary.id) if n not in looped]
        statements = []
        event.listen(db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        names = every_annotator_name(db)
        assert names == looped == ["ann", "zoe", "bob", "cy"]
        assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
