"""The sequential sign-test experiment's results (:mod:`core.experiments.sequential_sign_test`): one row per
simulated setting, what its report (:mod:`core.experiments.sequential_sign_test_report`) reads, so the report
never imports the experiment that runs the simulation."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class NullSetting:
    setting: str
    win_rate: float
    studies: int
    max_n: int
    alpha: float
    anytime_false_positive_rate: float
    anytime_standard_error: float
    naive_false_positive_rate: float
    naive_standard_error: float


@dataclass(frozen=True)
class AlternativeSetting:
    setting: str
    win_rate: float
    studies: int
    simulated_max_n: int
    alpha: float
    target_power: float
    sequential_cap: int | None  # N_seq: the target-power quantile of the stopping time
    sequential_power: float  # share of studies decided by the cap (>= target by the cap's choice)
    wrong_side: int  # decisions for B although A is better
    median_judgments: float | None  # of min(stopping time, cap)
    mean_judgments: float | None
    median_stopping_time_decided: float | None  # among studies decided within simulated_max_n
    fixed_n: int | None  # exact binomial sign test with the same power
    saved_median: float | None  # 1 - median / fixed_n
    saved_mean: float | None
    # Capped at the smallest win rate's N_seq instead (the design planned for the smallest effect).
    planned_cap: int | None = None
    median_judgments_planned_cap: float | None = None



def as_json_lines(null: NullSetting, alternatives: list[AlternativeSetting]) -> str:
    return "".join(json.dumps(asdict(row)) + "\n" for row in [null, *alternatives])
