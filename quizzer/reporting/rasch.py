"""The Rasch (1PL) model: each item's difficulty and each learner's ability, on one logit scale, with
standard errors.

    P(learner n answers item i right) = σ(θₙ − bᵢ),   σ(x) = 1 / (1 + e⁻ˣ)

**Why NumPy and not a library.**  The Python IRT packages do not fit a report: ``girth`` (last
release 2021) is unmaintained; ``py-irt`` fits by variational inference through Pyro and PyTorch,
which the report may not import (only the engine touches torch) and whose estimates vary run to
run; ``mirt`` is new and multidimensional.  The fits below are a few dozen lines of NumPy,
deterministic, and checked against R's ``eRm`` (the psychometricians' reference, ``tests/report/
test_reference_rasch.py``) on real exam data: difficulties and their standard errors agree to 0.001.

**Items: conditional ML** (CML, as ``eRm::RM``).  A learner's raw score rₙ is sufficient for θₙ, so
conditioning on it removes θ: with εᵢ = e^(−bᵢ) and γ_r the elementary symmetric functions of the εᵢ of
the items the learner answered, ℓ_c = −Σᵢ sᵢbᵢ − Σₙ log γ_{rₙ}.  Its gradient is Σₙ πₙᵢ − sᵢ, where
πₙᵢ = εᵢ γ⁽ⁱ⁾_{rₙ−1} / γ_{rₙ} is the chance that learner n got item i right given their score, and
its information matrix is Σₙ Cov(xₙᵢ, xₙⱼ | rₙ) (πₙᵢⱼ = εᵢεⱼ γ⁽ⁱʲ⁾_{rₙ−2} / γ_{rₙ}).  Newton steps
until no difficulty moves by ``TOLERANCE``; the difficulties are centred at 0 (eRm's ``sum0``) and
their standard errors are the square roots of the diagonal of the information's pseudo-inverse (the
covariance under that constraint, as eRm computes it).  Unlike joint ML (which this module used
before), CML is consistent with a fixed number of items: joint ML spread 13 items' difficulties by
7–11 % (about 13/12) on psychotools' MathExam14W, up to 0.25 logit from eRm's.  Learners with
the same set of answered items share their γ's, so a class that sat one paper costs one pattern.

**Learners: ML given the items** (as ``eRm::person.parameter`` for a score that is neither 0 nor
full): the θ where the expected score Σᵢ σ(θ − bᵢ) over the learner's items equals their score,
with standard error 1/√(Σᵢ PQ).

**Extremes.**  A learner who got every item right (or wrong), or an item everybody got right (or
wrong), has an infinite ML estimate; they are set aside (repeatedly, as removing one may make
another extreme) and reported as not estimated.
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
    b, covariance, rounds = conditional_ml(x)
    theta = _abilities(x, b)
    seen = ~np.isnan(x)
    pq = np.where(seen, _p(theta, b) * (1 - _p(theta, b)), 0.0)
    kept_learners = [name for name, keep in zip(learners, keep_rows, strict=True) if keep]
    kept_items = [key for key, keep in zip(items, keep_columns, strict=True) if keep]
    return RaschFit(
        difficulties={key: Estimate(float(b[i]), float(np.sqrt(covariance[i, i])))
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


def symmetric_functions(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """γ_0 … γ_k of ε₁ … ε_k (the summation algorithm): γ_r = Σ over r-item subsets of their ε's product."""
    gamma: NDArray[np.float64] = symmetric_functions_of_rows(eps[np.newaxis])[0]
    return gamma


def symmetric_functions_of_rows(eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """[m, k] → [m, k+1]: each row's γ's, every row by the same steps at once (the same numbers as one row at
    a time: each element is computed by the same operations in the same order)."""
    rows, count = eps.shape
    gamma = np.zeros((rows, count + 1))
    gamma[:, 0] = 1.0
    for k in range(1, count + 1):
        gamma[:, 1:k + 1] = gamma[:, 1:k + 1] + eps[:, k - 1:k] * gamma[:, 0:k]
    return gamma


def _without(eps: NDArray[np.float64], dropped: NDArray[np.bool_]) -> NDArray[np.float64]:
    """[m, k] mask of the items each row leaves out (the same number in every row) → [m, k − dropped] ε's."""
    kept = ~dropped
    return np.broadcast_to(eps, dropped.shape)[kept].reshape(len(dropped), int(kept[0].sum()) if len(kept) else 0)


def conditional_ml(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Item difficulties by conditional ML (sum 0), their covariance, and the Newton steps taken."""
    seen = ~np.isnan(x)
    right = np.where(seen, x, 0.0)
    s = right.sum(axis=0)
    patterns: dict[bytes, tuple[NDArray[np.intp], NDArray[np.float64]]] = {}
    for n in range(x.shape[0]):  # learners who answered the same items share their γ's: count their scores
        answered = np.flatnonzero(seen[n])
        key = answered.tobytes()
        if key not in patterns:
            patterns[key] = (answered, np.zeros(len(answered) + 1))
        patterns[key][1][int(right[n].sum())] += 1
    b = np.log((seen.sum(axis=0) - s) / s)
    b -= b.mean()
    rounds = 0
    while True:
        rounds += 1
        expected, information = _conditional_moments(b, patterns)
        step = _sum_zero_inverse(information) @ (expected - s)
        step = np.clip(step, -MAX_STEP, MAX_STEP)
        b = b + step
        b -= b.mean()
        if np.abs(step).max(initial=0) < TOLERANCE or rounds >= MAX_ROUNDS:
            break
    _, information = _conditional_moments(b, patterns)
    return b, _sum_zero_inverse(information), rounds


def _sum_zero_inverse(information: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of the information on difficulties that sum to 0: its pseudo-inverse, as (A + J)⁻¹ − J with
    J = 11ᵀ/I (A's null space is the all-ones direction, a shift of every difficulty, which changes nothing)."""
    shift = np.full(information.shape, 1.0 / len(information))
    return np.asarray(np.linalg.inv(information + shift) - shift)


def _conditional_moments(b: NDArray[np.float64], patterns: dict[bytes, tuple[NDArray[np.intp], NDArray[np.float64]]]
                         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Σₙ πₙᵢ and Σₙ Cov(xₙᵢ, xₙⱼ | rₙ) at ``b``."""
    items = len(b)
    expected, information = np.zeros(items), np.zeros((items, items))
    for answered, counts in patterns.values():
        eps = np.exp(-b[answered])
        k = len(answered)
        gamma = symmetric_functions(eps)
        scores = np.arange(k + 1)
        weight = np.where((scores > 0) & (scores < k), counts, 0.0) / gamma  # extreme scores carry nothing
        # The γ's without item i (γ⁽ⁱ⁾) and without items i and j (γ⁽ⁱʲ⁾), all of a pattern at once: one at a
        # time, the k²/2 pairs' were most of a class report's time.
        one = np.eye(k, dtype=bool)
        without = symmetric_functions_of_rows(_without(eps, one))  # [k, k]: row i is γ⁽ⁱ⁾
        pi = np.zeros((k, k + 1))  # πᵢ for each score r
        pi[:, 1:] = eps[:, np.newaxis] * without[:, :k]
        pij = np.zeros((k, k, k + 1))
        first, second = np.triu_indices(k, 1)
        both = symmetric_functions_of_rows(_without(eps, one[first] | one[second]))  # [pairs, k − 1]: γ⁽ⁱʲ⁾
        pij[first, second, 2:] = pij[second, first, 2:] = (eps[first] * eps[second])[:, np.newaxis] * both[:, :k - 1]
        pi_r = pi / gamma  # [k, r]: P(right | r)
        expected[answered] += pi @ weight
        cross = np.einsum("ijr,r->ij", pij, weight) - np.einsum("ir,jr,r->ij", pi_r, pi_r, counts * (weight > 0))
        np.fill_diagonal(cross, pi @ weight - np.einsum("ir,r->i", pi_r ** 2, counts * (weight > 0)))
        information[np.ix_(answered, answered)] += cross
    return expected, information


def _abilities(x: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each learner's ML θ given the difficulties: Newton on rₙ = Σᵢ σ(θₙ − bᵢ) over the items they answered."""
    seen = ~np.isnan(x)
    r, n_seen = np.where(seen, x, 0.0).sum(axis=1), seen.sum(axis=1)
    theta: NDArray[np.float64] = np.log(r / (n_seen - r))
    for _ in range(MAX_ROUNDS):
        p = np.where(seen, _p(theta, b), 0.0)
        step = np.clip((r - p.sum(axis=1)) / (p * (1 - p)).sum(axis=1), -MAX_STEP, MAX_STEP)
        theta = theta + step
        if np.abs(step).max(initial=0) < TOLERANCE:
            break
    return theta
