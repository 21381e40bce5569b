"""Evidence that the anytime-valid sign test keeps its promise, and what it costs or saves (issue 29).

Simulated studies of one comparison, A against B, one non-tied sentence pair
(a "judgment" below) at a time, each an independent win of A with probability
``win_rate``:

* Under H0 (win rate 1/2), every study is looked at after every judgment up to
  ``max_n``. The anytime test (:mod:`core.stats.anytime_sign_test`) rejects the
  first time its mixture martingale reaches 1/α; the naive researcher runs the
  fixed exact two-sided binomial sign test after every judgment and stops at the
  first p ≤ α. Reported: the share of studies each ever rejects (false
  positives).
* Under win rates 0.6, 0.7, 0.8, at a target power (default 0.8): the anytime
  test is given the cap ``N_seq`` at which that share of studies has decided
  (the power-quantile of its stopping time, from the simulation), and spends
  ``min(stopping time, N_seq)`` judgments per study; the fixed design needs the
  smallest n whose exact binomial test has that power (computed exactly from
  the binomial distribution, not simulated). Reported: the median and mean
  judgments spent against that fixed n.

True by construction: Ville's inequality bounds the anytime test's
false-positive rate by α for any ``max_n`` (what the simulation shows is how
far below α it stays, and how far above α the naive procedure goes).

Reproducible: one ``numpy.random.Generator`` per setting, spawned from
``--seed`` through ``SeedSequence``, so a setting's figures do not depend on
which other settings ran. Studies are simulated in blocks with cumulative sums.

    parastudio experiment sequential-sign-test [--studies 10000] [--max-n 500] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from parastudio.core.experiments import module_main
from parastudio.core.experiments.sequential_sign_test_results import AlternativeSetting, NullSetting

if TYPE_CHECKING:  # numpy and the test load when the experiment runs, not when the CLI builds its parser
    import numpy as np

    from parastudio.core.stats.anytime_sign_test import AnytimeSignTest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "evaldata" / "results"
NAME = "sequential-sign-test"
_BLOCK = 1000  # studies simulated at once: a block of 1000 x 4000 judgments is 32 MB of float64


def exact_rejections(max_n: int, alpha: float) -> np.ndarray:
    """reject[n, w]: the exact two-sided binomial sign test (p = 1/2) rejects w wins out of n at level alpha.

    For p = 1/2 the two-sided exact p-value (``scipy.stats.binomtest``'s, outcomes no more likely than the
    observed one) is min(1, 2 P(X <= min(w, n - w))), X ~ Bin(n, 1/2).
    """
    import numpy as np
    from scipy.stats import binom

    n = np.arange(max_n + 1)[:, None]
    w = np.arange(max_n + 1)[None, :]
    tail = binom.cdf(np.minimum(w, n - w), n, 0.5)
    p_value = np.minimum(1.0, 2.0 * tail)
    return (w <= n) & (n > 0) & (p_value <= alpha)


def fixed_design_n(win_rate: float, power: float, alpha: float, max_n: int) -> int | None:
    """The smallest n at which the exact two-sided sign test has at least ``power`` against ``win_rate``."""
    import numpy as np
    from scipy.stats import binom

    rejections = exact_rejections(max_n, alpha)
    for n in range(1, max_n + 1):
        wins = np.flatnonzero(rejections[n, : n + 1])
        if binom.pmf(wins, n, win_rate).sum() >= power:
            return n
    return None


@dataclass(frozen=True)
class StoppingTimes:
    """Per simulated study: the first judgment at which a procedure rejected (0 = never within max_n) and the
    side it took (+1 A, -1 B)."""

    anytime: np.ndarray
    anytime_side: np.ndarray
    naive: np.ndarray


def _first(hits: np.ndarray) -> np.ndarray:
    """1-based index of the first True per row, 0 where there is none."""
    import numpy as np

    any_hit = hits.any(axis=1)
    return np.where(any_hit, hits.argmax(axis=1) + 1, 0)


def stopping_times(wins_a: np.ndarray, test: AnytimeSignTest, rejections: np.ndarray | None = None) -> StoppingTimes:
    """Stopping times of studies given as rows of outcomes (True: A won that judgment), each looked at after
    every judgment; ``rejections`` (:func:`exact_rejections`) adds the naive repeated fixed test's."""
    import numpy as np

    from parastudio.core.stats.anytime_sign_test import log_mixture_martingale

    size, max_n = wins_a.shape
    steps = np.arange(1, max_n + 1)
    wins = np.cumsum(wins_a, axis=1)
    losses = steps[None, :] - wins
    crossed = log_mixture_martingale(wins, losses, test.prior_a, test.prior_b) >= np.log(1.0 / test.alpha)
    first = _first(crossed)
    at = np.maximum(first - 1, 0)
    side = np.where(first > 0, np.sign(wins[np.arange(size), at] - losses[np.arange(size), at]), 0)
    naive = _first(rejections[steps[None, :], wins]) if rejections is not None else np.zeros(0, dtype=int)
    return StoppingTimes(first, side, naive)


def simulate(win_rate: float, studies: int, max_n: int, test: AnytimeSignTest, rng: np.random.Generator,
             naive: bool = False) -> StoppingTimes:
    """Stopping times of ``studies`` simulated studies of ``max_n`` judgments each (module docstring)."""
    import numpy as np

    rejections = exact_rejections(max_n, test.alpha) if naive else None
    blocks = [stopping_times(rng.random((min(_BLOCK, studies - start), max_n)) < win_rate, test, rejections)
              for start in range(0, studies, _BLOCK)]
    return StoppingTimes(*(np.concatenate([getattr(b, name) for b in blocks])
                           for name in ("anytime", "anytime_side", "naive")))


def null_setting(studies: int, max_n: int, test: AnytimeSignTest, rng: np.random.Generator) -> NullSetting:
    import numpy as np

    times = simulate(0.5, studies, max_n, test, rng, naive=True)
    anytime = float(np.mean(times.anytime > 0))
    naive = float(np.mean(times.naive > 0))
    return NullSetting("H0", 0.5, studies, max_n, test.alpha, anytime, _se(anytime, studies), naive,
                       _se(naive, studies))


def _se(share: float, n: int) -> float:
    import numpy as np

    return float(np.sqrt(share * (1 - share) / n))


def alternative_setting(win_rate: float, studies: int, max_n: int, power: float, test: AnytimeSignTest,
                        rng: np.random.Generator, planned_cap: int | None = None) -> AlternativeSetting:
    import numpy as np

    times = simulate(win_rate, studies, max_n, test, rng)
    decided = times.anytime[times.anytime > 0]
    cap = None
    if decided.size >= np.ceil(power * studies):
        # The smallest cap by which at least `power` of the studies decided.
        cap = int(np.sort(decided)[int(np.ceil(power * studies)) - 1])
    fixed = fixed_design_n(win_rate, power, test.alpha, max_n)
    if cap is None:
        spent = None
        sequential_power = float(decided.size / studies)
    else:
        spent = np.where((times.anytime > 0) & (times.anytime <= cap), times.anytime, cap)
        sequential_power = float(np.mean((times.anytime > 0) & (times.anytime <= cap)))
    median = float(np.median(spent)) if spent is not None else None
    planned_cap = cap if planned_cap is None else planned_cap
    planned = None
    if planned_cap is not None:
        planned = float(np.median(np.where((times.anytime > 0) & (times.anytime <= planned_cap), times.anytime,
                                           planned_cap)))
    mean = float(np.mean(spent)) if spent is not None else None
    return AlternativeSetting(
        setting=f"win rate {win_rate:g}", win_rate=win_rate, studies=studies, simulated_max_n=max_n,
        alpha=test.alpha, target_power=power, sequential_cap=cap, sequential_power=sequential_power,
        wrong_side=int(np.sum(times.anytime_side < 0)), median_judgments=median, mean_judgments=mean,
        median_stopping_time_decided=float(np.median(decided)) if decided.size else None, fixed_n=fixed,
        saved_median=None if median is None or fixed is None else 1 - median / fixed,
        saved_mean=None if mean is None or fixed is None else 1 - mean / fixed,
        planned_cap=planned_cap, median_judgments_planned_cap=planned)


def run(studies: int, max_n: int, win_rates: list[float], alternative_max_n: int, power: float,
        test: AnytimeSignTest, seed: int) -> tuple[NullSetting, list[AlternativeSetting]]:
    import numpy as np

    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(1 + len(win_rates))]
    null = null_setting(studies, max_n, test, streams[0])
    by_rate = sorted(zip(win_rates, streams[1:]), key=lambda pair: pair[0])
    # The smallest effect first: its cap is the one a researcher who plans for it would set.
    smallest = alternative_setting(*by_rate[0][:1], studies, alternative_max_n, power, test, by_rate[0][1])
    others = [alternative_setting(q, studies, alternative_max_n, power, test, rng, smallest.sequential_cap)
              for q, rng in by_rate[1:]]
    return null, [smallest, *others]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--studies", type=int, default=10000, help="simulated studies per setting (default 10000)")
    parser.add_argument("--max-n", type=int, default=500,
                        help="judgments per study under H0, each one looked at (default 500)")
    parser.add_argument("--win-rates", default="0.6,0.7,0.8", help="alternatives, comma-separated (default %(default)s)")
    parser.add_argument("--alternative-max-n", type=int, default=3000,
                        help="judgments simulated per study under an alternative (default 3000)")
    parser.add_argument("--power", type=float, default=0.8, help="target power of both designs (default 0.8)")
    parser.add_argument("--alpha", type=float, default=0.05, help="type-I error level (default 0.05)")
    parser.add_argument("--prior-a", type=float, default=1.0, help="Beta prior of the mixture (default 1)")
    parser.add_argument("--prior-b", type=float, default=1.0, help="(default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of numpy's Generator (default 0)")
    parser.add_argument("--out", default=str(RESULTS), help="output directory (default evaldata/results)")


def run_from_args(args: argparse.Namespace, command: str = "python -m core.experiments.sequential_sign_test") -> int:
    from parastudio.core.experiments.sequential_sign_test_report import write_results

    try:
        win_rates = [float(q) for q in args.win_rates.split(",") if q.strip()]
    except ValueError:
        win_rates = []
    problems = []
    if not win_rates or not all(0.5 < q < 1 for q in win_rates):
        problems.append(f"--win-rates: expected comma-separated win rates above 0.5 and below 1, got {args.win_rates!r}")
    if args.studies < 1 or args.max_n < 1 or args.alternative_max_n < 1:
        problems.append("--studies, --max-n and --alternative-max-n must be at least 1")
    if not 0 < args.power < 1 or not 0 < args.alpha < 1:
        problems.append("--power and --alpha must be between 0 and 1")
    if problems:
        for problem in problems:
            print(f"parastudio: error: {problem}", file=sys.stderr)
        return 2
    from parastudio.core.stats.anytime_sign_test import AnytimeSignTest

    test = AnytimeSignTest(alpha=args.alpha, prior_a=args.prior_a, prior_b=args.prior_b)
    started = time.perf_counter()
    null, alternatives = run(args.studies, args.max_n, win_rates, args.alternative_max_n, args.power, test, args.seed)
    seconds = time.perf_counter() - started
    write_results(Path(args.out), NAME, null, alternatives, test, command)
    print(f"anytime false-positive rate {null.anytime_false_positive_rate:.4f}, naive "
          f"{null.naive_false_positive_rate:.4f} (alpha {args.alpha:g}); {seconds:.1f} s; wrote "
          f"{Path(args.out) / NAME}.md and .jsonl", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("sequential_sign_test", __doc__.splitlines()[0], add_arguments, run_from_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
