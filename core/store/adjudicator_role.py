"""The adjudicator role: who may read the judges' labels on a disagreement and decide it.

Judges never see each other's labels, so reading a disagreement is a role the researcher gives by name
(``parastudio study adjudicators --set NAMES``, kept in the study's settings as ``adjudicators``), never one a
judge takes by opening a dialog. :func:`disagreements_for` is the one door the app reads disagreements through:
anyone not named is refused before any label is read. A study none of whose criteria is adjudicated (direct
assessment, error spans: their protocol's ``not_adjudicated``) takes no adjudicator.
"""

from __future__ import annotations

from parastudio.core.errors import OptionsError
from parastudio.core.person_names import Spellings
from parastudio.core.store.adjudication import Disagreement, disagreements, not_adjudicated
from parastudio.core.store.database import Database
from parastudio.core.store.studies import study_criteria, study_settings, update_study_settings
from parastudio.core.store.study_members import connection_membership


class NotAnAdjudicator(PermissionError):
    """``name`` was not named an adjudicator of the study by the researcher."""

    def __init__(self, name: str, study_id: int):
        self.name, self.study_id = name, study_id
        super().__init__(f"{name} is not an adjudicator of this study: judges never see each other's labels; the "
                         "researcher names adjudicators with `parastudio study adjudicators --set NAME`")


def adjudicators(db: Database, study_id: int) -> tuple[str, ...]:
    """The names the researcher made adjudicators of the study (none by default)."""
    return tuple(study_settings(db, study_id).get("adjudicators") or ())


def set_adjudicators(db: Database, study_id: int, names) -> tuple[str, ...]:
    """Make exactly ``names`` the study's adjudicators (one logged settings change); returns them.

    :class:`OptionsError` (one line) when names are given and no criterion of the study is adjudicated; a name is
    kept as annotators' are (composed form), and two spellings of one name are refused (:class:`BadNameError`)."""
    spellings = Spellings("adjudicator name")
    cleaned = tuple(dict.fromkeys(spellings.take(name) for name in names if name and name.strip()))
    if cleaned:
        left_out = not_adjudicated(db, study_id)
        if left_out and len(left_out) == len(study_criteria(db, study_id)):
            raise OptionsError("nothing to adjudicate in this study: " + "; ".join(
                f"criterion {name} is not adjudicated: {reason}" for name, reason in left_out.items()))
    update_study_settings(db, study_id, adjudicators=list(cleaned))
    return cleaned


def is_adjudicator(db: Database, study_id: int, name: str | None) -> bool:
    """On a member's own PostgreSQL login the server says (its role, not a name typed); elsewhere the researcher's
    list says."""
    if db.is_member_login:
        membership = (connection_membership(db) or {}).get(study_id)
        return membership is not None and membership.role == "adjudicator" and membership.login == name
    return bool(name) and name in adjudicators(db, study_id)


def disagreements_for(db: Database, study_id: int, adjudicator: str, *,
                      include_decided: bool = True) -> list[Disagreement]:
    """The study's disagreements, for a named adjudicator only (:class:`NotAnAdjudicator` otherwise)."""
    if not is_adjudicator(db, study_id, adjudicator):
        raise NotAnAdjudicator(adjudicator, study_id)
    return disagreements(db, study_id, include_decided=include_decided)
