"""Studies and annotators: create a study with its criteria, find one by name, read its criteria and settings,
find or create an annotator."""

from __future__ import annotations

import uuid
from typing import Sequence

from sqlalchemy import JSON, func, select

from parastudio.core.errors import BadNameError
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK
from parastudio.core.person_names import clean_name, look_alike
from parastudio.core.store.clock import now
from parastudio.core.store.criteria import CriterionSpec, preset_criterion
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.models import Annotator, Criterion, Study
from parastudio.core.vocabulary import DEFAULT_CRITERIA

# The settings a judging screen needs, all a judge may read of them (issue 38; revision 0007's
# ps_judging_settings lists the same keys, revision 0009 adds "pace", and an exported package keeps only these).
JUDGING_SETTINGS = ("instructions", "display", "blind_phases", "truecase_model", "pace")


def find_study(db: Database, name: str | None = None) -> int:
    """The id of study ``name``, or of the only study when no name is given."""
    with db.reading() as session:
        if name is not None:
            found = session.scalar(select(Study.id).where(Study.name == name))
            if found is None:
                raise LookupError(f"no study named {name!r} in {db.engine.url.database or db.engine.url}")
            return found
        rows = session.execute(select(Study.id, Study.name).order_by(Study.id)).all()
    if not rows:
        raise LookupError("the database holds no study")
    if len(rows) > 1:
        names = ", ".join(repr(row.name) for row in rows)
        raise LookupError(f"the database holds {len(rows)} studies ({names}); name one with --study")
    return rows[0].id


def study_name(db: Database, study_id: int) -> str:
    with db.reading() as session:
        return session.scalar(select(Study.name).where(Study.id == study_id))


def annotator_in(session, study_id: int, name: str, *, create: bool = True) -> int:
    """The id of annotator ``name`` of the study, added when missing (``create``); LookupError otherwise.

    The name is taken in its composed form; one holding an invisible or direction character, or reading as
    another annotator's (:mod:`core.person_names`), is refused (:class:`BadNameError`), never a second person."""
    name = clean_name(name, "annotator name")
    found = session.scalar(select(Annotator.id).where(Annotator.study_id == study_id, Annotator.name == name))
    if found is None:
        others = session.scalars(select(Annotator.name).where(Annotator.study_id == study_id)).all()
        similar = look_alike(name, others)
        if similar is not None:
            raise BadNameError(f"annotator name {ascii(name)} reads as the study's annotator {ascii(similar)}: use "
                               "that name, or one that does not look like it")
        if not create:
            raise LookupError(f"no annotator named {name!r} in this study")
        annotator = Annotator(study_id=study_id, name=name)
        session.add(annotator)
        session.flush()
        found = annotator.id
    return found


def find_annotator(db: Database, study_id: int, name: str, *, create: bool = False) -> int:
    with (db.transaction() if create else db.reading()) as session:
        return annotator_in(session, study_id, name, create=create)


def new_study_plan(name: str, criteria: Sequence[str | CriterionSpec], judges_per_item: int,
                   application: str | None) -> tuple[str, list[CriterionSpec]]:
    """The study's name and criteria as :func:`create_study` stores them, or the error it would raise: checked
    before a study file is made, so that a refused study leaves no file behind."""
    if judges_per_item < 1:
        raise ValueError("judges per item must be at least 1")
    name = clean_name(name, "study name")
    specs = [c if isinstance(c, CriterionSpec) else preset_criterion(c, application) for c in criteria]
    if not specs:
        raise ValueError("a study needs at least one criterion")
    for spec in specs:
        protocol_of(spec.scale)  # a scale no protocol answers is refused, naming the scales there are
    names = [spec.name for spec in specs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"criterion {repeated[0]!r} given twice; each criterion is judged once per item")
    return name, specs


def create_study(db: Database, name: str, *, criteria: Sequence[str | CriterionSpec] = DEFAULT_CRITERIA,
                 judges_per_item: int = 2, application: str | None = "simplification", seed: int = 0,
                 settings: dict | None = None, blind_phases: bool | None = None, uid: str | None = None) -> int:
    """A new study with its criteria (seed defaults unless named); returns its id.

    ``uid`` (default: a random UUID) names the study across copies and prefixes its dev-set record ids; a
    scripted experiment passes a fixed one so that its outputs, and their hashes, repeat from run to run.

    ``blind_phases`` (default: on when some criterion hides the source and
    another shows it) makes every assignment batch judge form before meaning
    (:func:`core.store.assignment.assign`)."""
    name, specs = new_study_plan(name, criteria, judges_per_item, application)
    with db.transaction() as session:
        if session.scalar(select(Study.id).where(Study.name == name)) is not None:
            raise ValueError(f"a study named {name!r} already exists")
        settings = dict(settings or {})
        if blind_phases is None:
            # A choice task's item is the source itself: hiding the source is no phase of its own.
            blind_phases = (any(not s.shows_source and protocol_of(s.scale).item != CHOICE_TASK for s in specs)
                            and any(s.shows_source for s in specs))
        settings["blind_phases"] = bool(blind_phases)
        similar = look_alike(name, session.scalars(select(Study.name)).all())
        if similar is not None:
            raise BadNameError(f"study name {ascii(name)} reads as the study {ascii(similar)} of this database")
        study = Study(uid=str(uuid.UUID(uid)) if uid else str(uuid.uuid4()), name=name, created_at=now(), judges_per_item=judges_per_item,
                      seed=seed, application=application, settings=settings)
        session.add(study)
        session.flush()
        for position, spec in enumerate(specs):
            session.add(Criterion(study_id=study.id, name=spec.name, question=spec.question, scale=spec.scale,
                                  levels=list(spec.levels), shows_source=spec.shows_source,
                                  application=spec.application, position=position))
        log_event(session, study.id, "study_created", {"name": name, "criteria": [s.name for s in specs],
                                                   "judges_per_item": judges_per_item, "seed": seed})
        return study.id


def study_settings(db: Database, study_id: int) -> dict:
    """The study's settings (display, blind phases, instructions, ...); on a member's own PostgreSQL login, only
    those a judging screen needs, as the server gives them (``ps_judging_settings``, revision 0007)."""
    if db.is_member_login:
        with db.read_connection() as connection:
            settings = connection.scalar(select(func.ps_judging_settings(study_id, type_=JSON)))
        return dict(settings or {})
    with db.reading() as session:
        study = session.get(Study, study_id)
        if study is None:
            raise LookupError(f"no study {study_id}")
        return dict(study.settings or {})


def study_criteria(db: Database, study_id: int) -> list[CriterionSpec]:
    """The study's criteria in the order judges meet them."""
    with db.reading() as session:
        return [CriterionSpec(c.name, c.question, c.scale, tuple(c.levels or ()), bool(c.shows_source), c.application)
                for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id)
                                         .order_by(Criterion.position))]


def update_study_settings(db: Database, study_id: int, **changes) -> dict:
    """Change some settings of a study (one transaction, logged); returns them all."""
    with db.transaction() as session:
        study = session.get(Study, study_id)
        if study is None:
            raise LookupError(f"no study {study_id}")
        study.settings = {**(study.settings or {}), **changes}
        log_event(session, study_id, "settings_changed", {"changes": changes})
        return dict(study.settings)


def set_guidelines(db: Database, study_id: int, instructions: dict, questions: dict[str, str]) -> dict:
    """Write a study's guidelines in one transaction (logged): its ``instructions`` setting and the question text
    of the criteria named in ``questions``. Returns what changed: ``{"introduction": bool, "questions": [names],
    "examples": {name: (before, after)}, "training": (before, after) or None}``, counts of examples of the criteria
    whose examples changed and of training items if they changed."""
    with db.transaction() as session:
        study = session.get(Study, study_id)
        if study is None:
            raise LookupError(f"no study {study_id}")
        criteria = {c.name: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        unknown = sorted(set(questions) - set(criteria))
        if unknown:
            raise ValueError(f"the study has no criterion {unknown[0]!r}")
        before = dict((study.settings or {}).get("instructions") or {})
        changed_questions = []
        for name, question in questions.items():
            if criteria[name].question != question:
                criteria[name].question = question
                changed_questions.append(name)
        old_examples, new_examples = before.get("examples") or {}, instructions.get("examples") or {}
        examples = {name: (len(old_examples.get(name, [])), len(new_examples.get(name, [])))
                    for name in sorted(set(old_examples) | set(new_examples))
                    if old_examples.get(name, []) != new_examples.get(name, [])}
        old_training, new_training = before.get("training") or [], instructions.get("training") or []
        changes = {"introduction": (before.get("text") or "") != (instructions.get("text") or ""),
                   "questions": changed_questions, "examples": examples,
                   "training": (len(old_training), len(new_training)) if old_training != new_training else None}
        study.settings = {**(study.settings or {}), "instructions": instructions}
        log_event(session, study_id, "guidelines_set", {"questions": {n: questions[n] for n in changed_questions},
                                                        "instructions": instructions})
        return changes
