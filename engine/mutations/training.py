"""Slips in label smoothing, the warm-up schedule and teacher forcing (beside engine/training.py)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from engine._common import check_sequence, check_warmup_step
from engine.mutations.base import Mutation
from engine.training import label_smoothing_targets, smoothed_cross_entropy

OTHER_CONVENTION = {"uniform": "non_gold", "non_gold": "uniform"}


def targets_other_convention(n_classes: int, target: ArrayLike, eps: float, convention: str = "uniform") -> np.ndarray:
    """The smoothed targets of the other convention: ε spread over V - 1 wrong classes where V was meant,
    or over all V where V - 1 was."""
    return label_smoothing_targets(n_classes, target, eps, OTHER_CONVENTION.get(convention, convention))


def cross_entropy_other_convention(logits: ArrayLike, target: ArrayLike, eps: float,
                                   convention: str = "uniform") -> float:
    """The smoothed loss with the other convention's targets."""
    return smoothed_cross_entropy(logits, target, eps, OTHER_CONVENTION.get(convention, convention))


def warmup_lr_branches_swapped(step: float, d_model: int, warmup: int = 4000) -> float:
    """η(s) = d^-0.5 · max(s^-0.5, s · w^-1.5): the other branch taken on each side of s = w."""
    check_warmup_step(step)
    return float(d_model**-0.5 * max(step**-0.5, step * warmup**-1.5))


def teacher_forcing_unshifted(targets: ArrayLike, bos: int) -> np.ndarray:
    """Decoder inputs [y_1, ..., y_T]: the labels themselves, not shifted right behind <bos>."""
    y = np.asarray(targets)
    check_sequence(y)
    return y.copy()  # [..., T]


MUTATIONS = (
    Mutation("label_smoothing_other_convention", "ε spread over V instead of V - 1 classes (or the reverse)",
             {"label_smoothing_targets": targets_other_convention,
              "smoothed_cross_entropy": cross_entropy_other_convention}),
    Mutation("warmup_wrong_branch", "the warm-up formula's branches swapped (max instead of min)",
             {"warmup_lr": warmup_lr_branches_swapped}),
    Mutation("teacher_forcing_no_shift", "decoder inputs not shifted right by one",
             {"teacher_forcing_inputs": teacher_forcing_unshifted}),
)
