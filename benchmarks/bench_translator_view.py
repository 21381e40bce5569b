"""The translator's view: milliseconds from a selection to its suggestions on the demo (the target: 100 ms).

1. The Qt-free session (:class:`core.inspection.translator_session.TranslatorSession`) on the bundled demo's
   100 RV1909 verses and their machine translation (``direct-test.graph.gz``): for each sentence, as a
   translator would, the sentence is opened (a fresh sentence graph: nothing cached from the one before) and
   ``--per-sentence`` selections are made, spans of 1-4 tokens at seeded random places; each timed from the
   call to the suggestions accepted for display.
2. The same through the real Translator screen (offscreen Qt): a selection set in the editor, the request run in
   the screen's worker, timed from the selection to the suggestions painted in the list (the screen's own
   ``latencies_ms``), for the first ``--gui-sentences`` sentences.

One-time loading (opening the graph store, the LM, SciPy's import) is timed apart and left out of both.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/bench_translator_view.py [--approach approach-10] [--cold]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.demo import demo_files  # noqa: E402
from parastudio.core.engine.decoders.cat.approaches import APPROACHES  # noqa: E402
from parastudio.core.inspection.translator_session import TranslatorSession  # noqa: E402


def selections(session: TranslatorSession, per_sentence: int, seed: int) -> list[tuple[int, int, int]]:
    """(sentence index, start, end) for every sentence: seeded spans of 1-4 tokens."""
    rng = random.Random(seed)
    chosen = []
    for index in range(session.count):
        tokens = session.translations[session.sentence_ids[index]].split()
        for _ in range(per_sentence):
            length = min(len(tokens), rng.randint(1, 4))
            start = rng.randrange(0, len(tokens) - length + 1)
            chosen.append((index, start, start + length))
    return chosen


def figures(name: str, times: list[float], shown: list[int]) -> None:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    within = sum(t <= 100 for t in times) / len(times)
    some = sum(n > 0 for n in shown) / len(shown)
    print(f"{name:<28} {len(times):>6} {statistics.median(times):7.1f} {p95:7.1f} {times[-1]:7.1f} "
          f"{100 * within:8.1f}% {statistics.mean(shown):6.2f} {100 * some:6.1f}%")


def header() -> None:
    print(f"{'':<28} {'n':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'<=100 ms':>9} {'shown':>6} {'any':>7}")


def bench_session(session: TranslatorSession, chosen) -> None:
    times, shown = [], []
    current = None
    for index, start, end in chosen:
        if index != current:
            session.go(index)
            current = index
        started = time.perf_counter()
        result = session.select(start, end)
        times.append(1000 * (time.perf_counter() - started))
        shown.append(len(result.suggestions))
    figures("session.select", times, shown)
    some = [(t, n) for t, n in zip(times, shown) if n]
    figures("  those with suggestions", [t for t, _ in some], [n for _, n in some])


def bench_screen(approach: str, chosen, sentences: int) -> None:
    import tempfile

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from parastudio.core.store.database import open_database
    from parastudio.desktop.translator_screen import TranslatorScreen

    app = QApplication.instance() or QApplication(sys.argv[:1])

    class Nobody:
        name = None

    folder = Path(tempfile.mkdtemp(prefix="bench-translator-"))
    db = open_database(folder / "study.sqlite", create=True)
    screen = TranslatorScreen(db, Nobody())
    screen.approach_combo.setCurrentText(approach)
    screen.resize(1024, 700)
    screen.show()
    started = time.perf_counter()
    screen.start_loading()
    while not screen.loaded:
        app.processEvents(QEventLoop.AllEvents, 50)
        if time.perf_counter() - started > 120:
            print("the screen did not load in 120 s")
            return
    print(f"screen loading (worker, once): {time.perf_counter() - started:.2f} s")
    shown = []
    screen.suggestions_shown.connect(lambda result: shown.append(len(result.texts)))
    current = None
    for index, start, end in chosen:
        if index >= sentences:
            break
        if index != current:
            screen.session.go(index)
            screen.show_sentence()
            current = index
        before = len(shown)
        screen.select_tokens(start, end)
        if screen._last_span is None:  # the same span as the one before: nothing asked
            continue
        while len(shown) == before:
            app.processEvents(QEventLoop.AllEvents, 5)
        # select nothing, so the next span is asked even when it equals this one
        cursor = screen.editor.textCursor()
        cursor.clearSelection()
        screen.editor.setTextCursor(cursor)
    figures("screen (select -> painted)", screen.latencies_ms, shown)
    some = [(t, n) for t, n in zip(screen.latencies_ms, shown) if n]
    figures("  those with suggestions", [t for t, _ in some], [n for _, n in some])
    QTimer.singleShot(0, screen.close)
    app.processEvents()
    screen.close_session()
    db.close()
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--approach", default="approach-10", choices=list(APPROACHES))
    parser.add_argument("--per-sentence", type=int, default=10)
    parser.add_argument("--gui-sentences", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-gui", action="store_true")
    parser.add_argument("--cold", action="store_true", help="load the graph store into an empty cache (the first "
                        "launch's one-time cost)")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.cold:
        import tempfile

        os.environ["PARASTUDIO_CACHE"] = tempfile.mkdtemp(prefix="bench-translator-cache-")
    demo = demo_files()
    started = time.perf_counter()
    session = TranslatorSession.open(demo.direct_graph, demo.spanish_test_sentences, demo.lm,
                                     approach=APPROACHES[args.approach])
    print(f"session loading (once: graph store{' built into an empty cache' if args.cold else ''}, LM, warm-up): "
          f"{time.perf_counter() - started:.2f} s")
    print(f"{session.count} sentences of {demo.direct_graph.name}, {args.per_sentence} selections each "
          f"(1-4 tokens, seed {args.seed}); {session.approach.signature()}")
    chosen = selections(session, args.per_sentence, args.seed)
    header()
    bench_session(session, chosen)
    session.close()
    if not args.no_gui:
        bench_screen(args.approach, chosen, args.gui_sentences)
    print("shown: mean suggestions shown per selection; any: selections with at least one suggestion")
    if args.cold:
        import shutil

        shutil.rmtree(os.environ["PARASTUDIO_CACHE"], ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
