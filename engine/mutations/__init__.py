"""engine.mutations: the slips of the course's computations, each a named engine function done wrong.

A mutation is one misconception of ``data/misconceptions.yaml`` (its ``id``) made executable:
for every public engine function the slip changes, a function with the *same signature* that
computes what a learner making that slip would get. quizzer reruns a template with those
functions in place of the engine's (``quizzer.templates.discovery``) and so names a mistake that
the template's author never listed.

Why separate functions beside the engine modules (``mutations/attention.py`` beside
``engine/attention.py``, and so on) rather than a ``slip=`` flag on each engine function:

* the reference functions keep the signatures that ``torch_backend`` mirrors and
  ``tests/engine`` checks against PyTorch; a flag would be a parameter PyTorch has no meaning for;
* a same-signature replacement drops into a template's function table unchanged, so the
  template's own expressions are rerun as written and an author writes nothing;
* each slip reads on its own, with its formula above it, like the function it alters.

Where a slip sits inside a larger computation (an unscaled score inside multi-head attention)
the engine exposes the step as a parameter of a helper (``attention_with``, ``heads_then_output``,
``encoding_at``, ``standardize``) so the mutation reuses the reference code around the step.

A mutation raises ValueError (or NumPy's errors) where it cannot apply: Q K without the
transpose needs d_k = T_k. Callers treat that as "not this slip".
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.mutations import attention, layers, params, positions, training
from engine.mutations.base import Mutation

MUTATIONS: tuple[Mutation, ...] = (
    *attention.MUTATIONS, *params.MUTATIONS, *positions.MUTATIONS, *layers.MUTATIONS, *training.MUTATIONS,
)
BY_ID: dict[str, Mutation] = {mutation.id: mutation for mutation in MUTATIONS}


def affecting(function_names: Iterable[str]) -> tuple[Mutation, ...]:
    """The mutations that replace at least one of `function_names`, in catalogue order."""
    names = set(function_names)
    return tuple(mutation for mutation in MUTATIONS if names & mutation.replaces.keys())


__all__ = ["BY_ID", "MUTATIONS", "Mutation", "affecting"]
