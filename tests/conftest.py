import os
import random
from pathlib import Path

import pytest

# The shared local SparkSession and standalone cluster of the tests marked `spark` (tests/spark_fixtures.py).
from tests.spark_fixtures import spark, spark_cluster, spark_connect_server  # noqa: F401

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent

WORDS = ("the dog cat runs walks after before a young old small big house garden "
         "sees finds quickly slowly and with beast kitten it near").split()


def toy_corpus(seed: int = 7, sentences: int = 600) -> list[str]:
    """Random but fixed English-like sentences for training tiny LMs."""
    rng = random.Random(seed)
    lines = []
    for _ in range(sentences):
        length = rng.randint(3, 12)
        lines.append(" ".join(rng.choice(WORDS) for _ in range(length)))
    return lines


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory):
    """A real 3-gram KenLM model (binary + ARPA) trained with lmplz on a toy corpus."""
    from parastudio.core.engine.lm.kenlm_tools import train_lm

    directory = tmp_path_factory.mktemp("lm")
    corpus = directory / "corpus.txt"
    corpus.write_text("\n".join(toy_corpus()) + "\n", encoding="utf-8")
    arpa = directory / "model.arpa"
    binary = train_lm(corpus, 3, directory / "model.bin", arpa_output=arpa, discount_fallback=True)
    return {"binary": binary, "arpa": arpa, "corpus": corpus}


EXAMPLE1_RULES = [
    ("the dog", "the beast", 0.8),
    ("the young cat", "the kitten", 0.7),
    ("after the", "after it", 0.4),
    ("the young", "the", 0.05),
    ("cat", "kitten", 0.1),
]


@pytest.fixture
def example1_table_path(tmp_path):
    """Seed 000's Example 1 table (T1-T5) in Moses format."""
    path = tmp_path / "example1.txt"
    path.write_text("".join(f"{s} ||| {t} ||| {p}\n" for s, t, p in EXAMPLE1_RULES), encoding="utf-8")
    return path


@pytest.fixture
def postgres_url():
    """A fresh PostgreSQL database for one test, dropped afterwards.

    Needs ``PARASTUDIO_TEST_POSTGRES_URL`` (an account that may create
    databases; ``packaging/setup.sh test`` starts a local server and sets it).
    """
    base = os.environ.get("PARASTUDIO_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("PARASTUDIO_TEST_POSTGRES_URL is not set: no PostgreSQL server to test against")
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"parastudio_test_{uuid.uuid4().hex[:12]}"
    # Pinged before use: a test may stop and start the server (the offline outbox's test).
    admin = create_engine(base, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def private_qt_settings(tmp_path, monkeypatch):
    """The app's QSettings in this test's own folder, never the user's (desktop tests use it for every test)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.IniFormat)


@pytest.fixture
def screen_for(qtbot):
    """Opens the app's annotation screen on a study for an annotator (study named "toy"); closes them after."""
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    made = []

    def make(db, study_id, annotator="ann"):
        writer = JudgmentWriter(db)
        screen = AnnotationScreen(db, writer)
        qtbot.addWidget(screen)
        screen.resize(1000, 700)
        screen.show()
        made.append((screen, writer))
        refused = []
        screen.open_refused.connect(refused.append)
        with qtbot.waitSignal(screen.open_done, timeout=120_000):  # the study opens off the UI thread
            screen.open(study_id, annotator, "toy")
        if refused:
            raise refused[0]
        return screen

    yield make
    for screen, writer in made:  # as the window closes: session released, timers stopped, then the writer
        screen.close_session()
        screen.progress.stop()
        writer.close()


@pytest.fixture
def ctrl_c_as_a_terminal_gives_it():
    """Ctrl+C's disposition as a command started from a terminal has it, however pytest was started: a shell
    starts a background job (``pytest ... &``, ``.ci/run &``) with SIGINT ignored, every command a test starts
    inherits that, and Python keeps an inherited ignore (such a command rightly goes on after a SIGINT). Whether
    a test saw it depended on what ran before: a library that left a handler of its own in this process (pyspark's
    SparkContext does) gives children the default back at exec. What was there is put back after."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
