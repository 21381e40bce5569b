"""Twenty annotators judging one study at once, for a bounded time (issue 18): nothing lost, nothing doubled.

Each annotator is a thread with its own connection, going through the
store's public operations (:mod:`tests.annotator_simulation`); halfway, a
second batch of candidates is imported and assigned. Afterwards the database
holds exactly the answers and undos the annotators gave, each assignment's
live answer is the one its annotator left, no annotator was served an
assignment twice except what the design serves twice (an item reopened by
an undo; repeats are assignments of their own), none another's, and no item
has more judges than the study asks. PostgreSQL runs on the server
``packaging/setup.sh test`` starts; SQLite on a file.
"""

from __future__ import annotations

import threading
import time

import pytest
from annotator_simulation import add_candidates, annotator_names, audit, judge, make_study

ANNOTATORS = 20
SECONDS = 4.0


@pytest.fixture(params=["postgresql", "sqlite"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "load.sqlite")
    return request.getfixturevalue("postgres_url")


def test_twenty_annotators_at_once_lose_and_double_nothing(url):
    study = make_study(url, ANNOTATORS, sentences=400)
    start = threading.Barrier(ANNOTATORS + 1)
    logs, errors = [None] * ANNOTATORS, []

    def annotator(index: int, name: str) -> None:
        try:
            logs[index] = judge(url, study, name, SECONDS, seed=index, start=start)
        except BaseException as error:  # reported below, with the annotator's name
            errors.append((name, repr(error)))
            start.abort()

    threads = [threading.Thread(target=annotator, args=(i, name)) for i, name in enumerate(annotator_names(ANNOTATORS))]
    for thread in threads:
        thread.start()
    start.wait()
    time.sleep(SECONDS / 3)
    add_candidates(url, study, ANNOTATORS, first_sentence=400, sentences=100)
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert audit(url, study, logs) == {}
    assert all(log.answers for log in logs) and not any(log.heartbeats_lost for log in logs)
    assert sum(len(log.undone) for log in logs) > 0  # undos happened, and were checked
