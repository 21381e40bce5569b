"""Bradley–Terry strengths of systems from pairwise preferences, with bootstrap 95 % intervals (issue 30).

The model (Bradley & Terry 1952): system ``i`` beats system ``j`` with probability
``1 / (1 + exp(-(theta_i - theta_j)))``; ``theta`` (our ``strength``) is a log-strength, shown centred so the
systems' mean is 0. It is fitted by maximum likelihood with ``choix.ilsr_pairwise_dense`` (Maystre &
Grossglauser 2015, iterative Luce spectral ranking, which converges to the maximum-likelihood estimate).

Ties carry no information on who is better in this model and are left out (they are counted). The maximum-
likelihood estimate does not exist when a system wins (or loses) every comparison, so ``prior_wins`` virtual
wins are added each way between every pair of systems that were compared (a symmetric pseudo-count prior,
0.5 by default); the fit is the exact maximum of the likelihood of those counts, which
``tests/test_bradley_terry.py`` checks against a direct minimization with scipy.

Intervals: the percentile bootstrap over source sentences (a sentence carries all its judgments, so the
resampling respects what the judgments share), ``replicates`` refits with a seeded generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from parastudio.core.stats.preference import PreferenceJudgment, systems_of
from parastudio.core.stats.signature import Signed


class DisconnectedComparisonsError(ValueError):
    """The systems fall into groups never compared with each other: their strengths are not comparable."""


def win_matrix(judgments: Sequence[PreferenceJudgment], systems: Sequence[str]) -> np.ndarray:
    """``m[i, j]``: answers preferring system ``i`` to system ``j``."""
    index = {name: k for k, name in enumerate(systems)}
    matrix = np.zeros((len(systems), len(systems)))
    for j in judgments:
        if j.winner is not None:
            matrix[index[j.winner], index[j.loser]] += 1
    return matrix


def compared(judgments: Sequence[PreferenceJudgment], systems: Sequence[str]) -> np.ndarray:
    """``c[i, j]`` True when systems ``i`` and ``j`` were shown side by side (ties by construction included)."""
    index = {name: k for k, name in enumerate(systems)}
    mask = np.zeros((len(systems), len(systems)), dtype=bool)
    for j in judgments:
        mask[index[j.left], index[j.right]] = mask[index[j.right], index[j.left]] = True
    return mask


def is_connected(mask: np.ndarray) -> bool:
    reached, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for other in np.flatnonzero(mask[node]):
            if int(other) not in reached:
                reached.add(int(other))
                frontier.append(int(other))
    return len(reached) == len(mask)


def fit_strengths(wins: np.ndarray) -> np.ndarray:
    """The maximum-likelihood log-strengths of a win matrix (centred); the matrix's comparison graph must be
    strongly connected for the maximum to exist (the prior makes it so)."""
    import choix

    # ILSR stops when successive iterates differ by less than tol in L1 norm.
    strengths = choix.ilsr_pairwise_dense(wins.astype(float), alpha=0.0, max_iter=10_000, tol=1e-10)
    return strengths - strengths.mean()


@dataclass(frozen=True)
class SystemStrength:
    system: str
    strength: float
    low: float
    high: float
    wins: int
    losses: int
    ties: int

    def to_json_dict(self) -> dict:
        return {"system": self.system, "strength": self.strength, "ci95": [self.low, self.high],
                "wins": self.wins, "losses": self.losses, "ties": self.ties}


@dataclass(frozen=True)
class BradleyTerry(Signed):
    """Bradley–Terry strengths with percentile-bootstrap intervals over source sentences (module docstring)."""

    name: ClassVar[str] = "bradley-terry"
    prior_wins: float = 0.5
    replicates: int = 1000
    seed: int = 0

    def settings(self) -> dict[str, object]:
        return {"fit": "choix-ilsr-ml", "ties": "dropped", "prior-wins": self.prior_wins,
                "bootstrap": f"percentile-sentences-{self.replicates}", "seed": self.seed}

    def strengths(self, judgments: Sequence[PreferenceJudgment]) -> list[SystemStrength]:
        """Per system, strongest first; DisconnectedComparisonsError when the systems cannot all be ranked."""
        systems = systems_of(judgments)
        if len(systems) < 2:
            return []
        mask = compared(judgments, systems)
        if not is_connected(mask):
            raise DisconnectedComparisonsError(
                "the systems compared fall into groups never compared with each other; their strengths cannot "
                "be put on one scale")
        prior = self.prior_wins * mask
        point = fit_strengths(win_matrix(judgments, systems) + prior)
        low, high = self._intervals(judgments, systems, prior)
        wins = win_matrix(judgments, systems)
        ties = {name: 0 for name in systems}
        for j in judgments:
            if j.winner is None:
                ties[j.left] += 1
                ties[j.right] += 1
        rows = [SystemStrength(name, float(point[k]), float(low[k]), float(high[k]), int(wins[k].sum()),
                               int(wins[:, k].sum()), ties[name]) for k, name in enumerate(systems)]
        return sorted(rows, key=lambda row: (-row.strength, row.system))

    def _intervals(self, judgments, systems, prior) -> tuple[np.ndarray, np.ndarray]:
        if self.replicates <= 0:
            nan = np.full(len(systems), np.nan)
            return nan, nan
        sentences = sorted({j.sentence for j in judgments})
        position = {s: k for k, s in enumerate(sentences)}
        per_sentence = np.zeros((len(sentences), len(systems), len(systems)))
        index = {name: k for k, name in enumerate(systems)}
        for j in judgments:
            if j.winner is not None:
                per_sentence[position[j.sentence], index[j.winner], index[j.loser]] += 1
        rng = np.random.default_rng(self.seed)
        draws = np.empty((self.replicates, len(systems)))
        for r in range(self.replicates):
            sample = rng.integers(0, len(sentences), len(sentences))
            draws[r] = fit_strengths(per_sentence[sample].sum(axis=0) + prior)
        return np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)
