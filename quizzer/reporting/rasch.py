"""The Rasch (1PL) model fitted by joint maximum likelihood: each item's difficulty and each
learner's ability, on one logit scale, with standard errors.

    P(learner n answers item i right) = σ(θₙ − bᵢ),   σ(x) = 1 / (1 + e⁻ˣ)

**Why NumPy and not a library.**  The Python IRT packages do not fit a report: ``girth`` (last
release 2021) is unmaintained; ``py-irt`` fits by variational inference through Pyro and PyTorch,
which the report may not import (only the engine touches torch) and whose estimates vary run to
run; ``mirt`` is new and multidimensional.  Joint ML for the 1PL is two Newton steps in a loop
over a learners × items matrix, a few dozen lines of NumPy, deterministic and fast on a class.

**Joint ML.**  The log-likelihood over the observed responses xₙᵢ ∈ {0, 1} (a learner sees only
some items: missing cells are left out) is ℓ = Σ xₙᵢ(θₙ − bᵢ) − log(1 + e^(θₙ − bᵢ)).  Each
round takes one Newton step for every θₙ (score rₙ − Σᵢ Pₙᵢ, information Σᵢ PₙᵢQₙᵢ), then for
every bᵢ, then centres the difficulties at 0 (the scale's origin is arbitrary), until no
estimate moves by more than ``TOLERANCE``.  The standard error of an estimate is 1/√information.

**Extremes.**  A learner who got every item right (or wrong), or an item everybody got right (or
wrong), has an infinite ML estimate; they are set aside (repeatedly, as removing one may make
another extreme) and reported as not estimated.

**Known bias.**  JML spreads difficulties by about L/(L − 1) for L items per learner (Wright's
correction); the order of the items, which is what a teacher acts on, is unaffected, and with
the class sizes the report needs (``MIN_LEARNERS`` in ``items``) the spread is a few percent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

TOLERANCE = 1e-4
MAX_ROUNDS = 200
MAX_STEP = 1.0  # logits per Newton step: far from the optimum a full step can overshoot


@dataclass(frozen=True)
class Estimate:
    value: float  # logits
    se: float


@dataclass(frozen=True)
class RaschFit:
    difficulties: dict[str, Estimate]  # by item key, centred at 0
    abilities: dict[str, Estimate]  # by learner
    extreme_items: tuple[str, ...]  # everybody right or everybody wrong: not estimated
    extreme_learners: tuple[str, ...]
    rounds: int


def fit_rasch(responses: Iterable[tuple[str, str, int]]) -> RaschFit:
    """Fit (learner, item, right ∈ {0, 1}) triples; one response per learner and item."""
    triples = list(responses)
    learners = sorted({learner for learner, _, _ in triples})
    items = sorted({item for _, item, _ in triples})
    x = np.full((len(learners), len(items)), np.nan)  # [N, I], NaN where not answered
    row = {name: n for n, name in enumerate(learners)}
    column = {key: i for i, key in enumerate(items)}
    for learner, item, right in triples:
        x[row[learner], column[item]] = right
    keep_rows, keep_columns = _without_extremes(x)
    x = x[np.ix_(keep_rows, keep_columns)]
    theta, b, rounds = _joint_ml(x)
    seen = ~np.isnan(x)
    pq = np.where(seen, _p(theta, b) * (1 - _p(theta, b)), 0.0)
    kept_learners = [name for name, keep in zip(learners, keep_rows, strict=True) if keep]
    kept_items = [key for key, keep in zip(items, keep_columns, strict=True) if keep]
    return RaschFit(
        difficulties={key: Estimate(float(b[i]), float(1 / np.sqrt(pq[:, i].sum())))
                      for i, key in enumerate(kept_items)},
        abilities={name: Estimate(float(theta[n]), float(1 / np.sqrt(pq[n].sum())))
                   for n, name in enumerate(kept_learners)},
        extreme_items=tuple(key for key, keep in zip(items, keep_columns, strict=True) if not keep),
        extreme_learners=tuple(name for name, keep in zip(learners, keep_rows, strict=True) if not keep),
        rounds=rounds)


def _p(theta: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """σ(θₙ − bᵢ) for every learner and item."""
    return 1 / (1 + np.exp(b[None, :] - theta[:, None]))  # [N, I]


def _without_extremes(x: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Masks of the learners and items left once every all-right or all-wrong one is set aside."""
    rows, columns = np.ones(x.shape[0], bool), np.ones(x.shape[1], bool)
    while True:
        sub = x[np.ix_(rows, columns)]
        seen = ~np.isnan(sub)
        right = np.nansum(sub, axis=1), np.nansum(sub, axis=0)
        count = seen.sum(axis=1), seen.sum(axis=0)
        row_ok = (right[0] > 0) & (right[0] < count[0])
        column_ok = (right[1] > 0) & (right[1] < count[1])
        if row_ok.all() and column_ok.all():
            return rows, columns
        rows[np.flatnonzero(rows)[~row_ok]] = False
        columns[np.flatnonzero(columns)[~column_ok]] = False


def _joint_ml(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Alternate Newton steps for θ and b from the logits of the raw scores; (θ, b, rounds)."""
    seen = ~np.isnan(x)
    right = np.where(seen, x, 0.0)
    r, s = right.sum(axis=1), right.sum(axis=0)  # learners' and items' scores
    n_seen, i_seen = seen.sum(axis=1), seen.sum(axis=0)
    theta = np.log(r / (n_seen - r))
    b = np.log((i_seen - s) / s)
    b -= b.mean()
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        p = np.where(seen, _p(theta, b), 0.0)
        step_theta = np.clip((r - p.sum(axis=1)) / (p * (1 - p)).sum(axis=1), -MAX_STEP, MAX_STEP)
        theta = theta + step_theta
        p = np.where(seen, _p(theta, b), 0.0)
        step_b = np.clip((p.sum(axis=0) - s) / (p * (1 - p)).sum(axis=0), -MAX_STEP, MAX_STEP)
        b = b + step_b
        shift = b.mean()
        b, theta = b - shift, theta - shift  # keep θ − b unchanged while centring b
        if max(np.abs(step_theta).max(initial=0), np.abs(step_b).max(initial=0)) < TOLERANCE:
            break
    return theta, b, rounds
