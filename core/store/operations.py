"""The operations on a study database, each one transaction: one face over the modules that implement them.

The CLI, notebooks and the desktop app call these and nothing else (as Anki's
collection hands notes, decks and cards to their own modules):

* :mod:`core.store.criteria`: preset criteria from the seeds and what an answer may be;
* :mod:`core.store.studies`: create a study, find it, find or create an annotator;
* :mod:`core.store.candidate_files`: candidate, source and choice-task files read, every field checked;
* :mod:`core.store.candidates`: candidates and choice tasks in;
* :mod:`core.store.assignment`: who judges what, in which order, with repeats and controls;
* :mod:`core.store.annotation`: the next item, recording an answer, undo;
* :mod:`core.store.annotation_queries`: what the judging screens read (studies, counts, a live answer);
* :mod:`core.store.session_lock`: one judging session per judge at a time;
* :mod:`core.store.choice_preview`: a choice task's pick shown in its sentence before it is accepted;
* :mod:`core.store.quality`: progress and quality control;
* :mod:`core.store.judgments_out`: judgments out, one self-contained row each;
* :mod:`core.store.judgments_in`: judgments in from a CSV or another reader's rows (an MQM file's);
* :mod:`core.store.exchange`: annotator packages out and back;
* :mod:`core.store.items`: public item ids, unit replacements and the item listing;
* :mod:`core.store.adjudication`: the items judges disagree on and a third annotator's decisions;
* :mod:`core.store.adjudicator_role`: who may read and decide them (named by the researcher);
* :mod:`core.store.study_members`: members, their roles, and on PostgreSQL their own logins;
* :mod:`core.store.connection_file`: a member's connection file (their login's URL and study);
* :mod:`core.store.answer_outbox`: answers on their way to a server, kept on the judge's disk until written;
* :mod:`core.store.own_answers`: judges' answer times (their pace) and a judge's own items (their own list);
* :mod:`core.judging.protocols.direct_assessment`: direct assessment by keys, where each key moves the score;
* :mod:`core.store.error_spans`: error span annotation: spans checked, marked by keys, mapped onto rewrites.
"""

from __future__ import annotations

from parastudio.core.judging.protocols.direct_assessment import DA_RECORD_KEYS, da_score_after_key
from parastudio.core.judging.protocols.error_spans import SpanMarking, parse_spans
from parastudio.core.store.adjudication import Disagreement, disagreements, not_adjudicated, record_adjudication
from parastudio.core.store.adjudicator_role import (
    NotAnAdjudicator,
    adjudicators,
    disagreements_for,
    is_adjudicator,
    set_adjudicators,
)
from parastudio.core.store.annotation import (
    ItemView,
    annotate_judgment,
    item_at,
    judgment_with_uid,
    neighbour_position,
    next_item,
    record_judgment,
    undo_last,
)
from parastudio.core.store.annotation_queries import (
    StudySummary,
    every_annotator_name,
    judgment_count,
    live_judgment_of,
    progress_counts,
    study_summaries,
)
from parastudio.core.store.answer_outbox import AnswerOutbox, Outgoing, is_connection_lost, send_once
from parastudio.core.store.assignment import AssignReport, assign, make_control_text, next_free_positions
from parastudio.core.store.candidate_files import (
    CandidateRow,
    read_candidates,
    read_candidates_jsonl,
    read_candidates_table,
    read_choice_tasks,
    read_sources,
)
from parastudio.core.store.candidates import ImportReport, add_choice_tasks, import_candidates
from parastudio.core.store.choice_preview import ChoicePreview
from parastudio.core.store.choice_preview import preview as preview_choice
from parastudio.core.store.clock import iso_time
from parastudio.core.store.connection_file import StudyConnection, is_connection_file, read_connection_file
from parastudio.core.store.criteria import CriterionSpec, bad_values, normalize_value, preset_criterion, yes_no_scales
from parastudio.core.store.error_spans import blamed_units
from parastudio.core.store.exchange import export_package, merge_package
from parastudio.core.store.items import item_key, list_items, parse_item_key, parse_unit_item_key, replacement_units
from parastudio.core.store.judgments_in import MergeReport, import_judgment_rows, import_judgments_csv
from parastudio.core.store.judgments_out import EXPORT_COLUMNS, export_judgments, iter_judgments, judgment_records
from parastudio.core.store.own_answers import OwnItem, annotators_of, answer_times, own_items
from parastudio.core.store.quality import (
    DEFAULT_QC_THRESHOLDS,
    QualityReport,
    StudyProgress,
    quality_control,
    study_progress,
)
from parastudio.core.store.session_lock import HEARTBEAT_SECONDS, SessionLock, SessionTaken
from parastudio.core.store.session_lock import heartbeat as heartbeat_session
from parastudio.core.store.session_lock import release as release_session
from parastudio.core.store.studies import (
    create_study,
    find_annotator,
    find_study,
    new_study_plan,
    set_guidelines,
    study_criteria,
    study_name,
    study_settings,
    update_study_settings,
)
from parastudio.core.store.study_members import (
    AccessError,
    Invitation,
    Membership,
    connection_membership,
    invite,
    members,
    revoke,
)
from parastudio.core.store.training import (
    TrainingResult,
    expected_answer,
    training_answer,
    training_results,
    training_row_ids,
)
from parastudio.core.vocabulary import APPLICATIONS, DEFAULT_CRITERIA, PRESET_CRITERIA

__all__ = [
    "APPLICATIONS", "AssignReport", "DA_RECORD_KEYS", "da_score_after_key", "SpanMarking", "blamed_units",
    "parse_spans", "Disagreement", "disagreements", "NotAnAdjudicator", "adjudicators",
    "disagreements_for", "is_adjudicator", "not_adjudicated", "set_adjudicators", "parse_unit_item_key", "record_adjudication",
    "replacement_units", "CandidateRow", "CriterionSpec", "DEFAULT_CRITERIA", "DEFAULT_QC_THRESHOLDS",
    "EXPORT_COLUMNS", "ImportReport", "ItemView", "MergeReport", "PRESET_CRITERIA", "QualityReport", "StudyProgress",
    "add_choice_tasks", "annotate_judgment", "assign", "bad_values", "create_study", "export_judgments",
    "export_package", "find_annotator", "import_judgment_rows", "find_study", "import_candidates", "import_judgments_csv", "item_at",
    "new_study_plan",
    "item_key", "iso_time", "iter_judgments", "judgment_records", "judgment_with_uid", "list_items",
    "make_control_text",
    "merge_package", "neighbour_position", "next_free_positions", "next_item", "normalize_value", "parse_item_key",
    "preset_criterion", "quality_control", "read_candidates", "read_candidates_jsonl", "read_candidates_table",
    "read_choice_tasks", "read_sources", "record_judgment", "study_criteria", "study_progress", "study_settings",
    "undo_last",
    "update_study_settings", "set_guidelines", "TrainingResult", "training_answer", "expected_answer", "training_results", "training_row_ids", "ChoicePreview", "preview_choice", "study_name", "AccessError", "Invitation",
    "Membership", "connection_membership", "invite", "members", "revoke", "AnswerOutbox", "Outgoing",
    "is_connection_lost", "send_once", "StudyConnection", "is_connection_file", "read_connection_file",
    "StudySummary", "every_annotator_name", "judgment_count", "live_judgment_of", "progress_counts",
    "study_summaries", "yes_no_scales", "HEARTBEAT_SECONDS", "SessionLock", "SessionTaken", "heartbeat_session",
    "release_session", "OwnItem", "annotators_of", "answer_times", "own_items",
]
