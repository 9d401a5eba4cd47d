"""engine: the numerical core of quizzer, every computation of the course notes in one place.

Conventions (they hold for every function in this package and in both backends):

* Notation follows the paper: B batch, T (T_q, T_k) sequence lengths, d_model, d_k, d_v,
  h heads, d_ff feed-forward width, V vocabulary size.
* Row-oriented like the notes: activations are [B, T, d] and a linear map is ``x @ W`` with
  paper-layout matrices W of shape [in, out] (W1 [d_model, d_ff], W2 [d_ff, d_model], W and
  U of additive attention).
* Arrays named like PyTorch parameters (``in_proj_weight``, ``out_proj_weight`` and the
  ``params`` dicts of encoder/decoder layers) keep PyTorch's [out, in] layout and state_dict
  key names, so a module's ``state_dict()`` converted to NumPy can be passed unchanged; hence
  ``W^Q = in_proj_weight[:d_model].T``.
* Masks are boolean with True = blocked, broadcastable to [..., T_q, T_k]: the polarity of
  torch.nn.MultiheadAttention's bool attn_mask, the opposite of the bool attn_mask of
  F.scaled_dot_product_attention. A row whose keys are all blocked raises ValueError.
* dtype: a float input keeps its dtype (float32 in, float32 out); other input (python
  lists, ints) computes in float64. Counts are python ints, scalar results python floats.

Backends: NumPy is the reference and the default; PyTorch (imported only when first used)
recomputes everything with PyTorch's own modules, or independent tensor code where PyTorch
has none, and returns the same NumPy arrays / ints / floats. Choose per process with
``set_backend`` or the ``QUIZZER_ENGINE_BACKEND`` environment variable (read once, at import),
per block with ``with use_backend("torch"):`` (context-local, so thread-safe), or per call with
``get_backend("torch").softmax(...)``.

``engine.mutations`` (imported only by who asks for it) holds the course's slips: for each
misconception id, same-signature replacements of the NumPy functions the slip changes, which
quizzer substitutes to discover an unlisted mistake. The reference modules never import it.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType
from typing import ParamSpec, TypeVar

from engine import numpy_backend as _numpy

BACKENDS = ("numpy", "torch")
PUBLIC_API: tuple[str, ...] = tuple(_numpy.__all__)

P = ParamSpec("P")
R = TypeVar("R")


def _checked(name: str) -> str:
    """`name` if it is a known backend, else ValueError listing the choices."""
    if name not in BACKENDS:
        raise ValueError(f"unknown engine backend {name!r}; choose one of {BACKENDS}")
    return name


_process_backend = _checked(os.environ.get("QUIZZER_ENGINE_BACKEND") or "numpy")
# Set only inside use_backend(); None defers to the process-wide choice.
_block_backend: ContextVar[str | None] = ContextVar("engine_backend", default=None)


def current_backend() -> str:
    """The backend that engine.<function> runs right now."""
    return _block_backend.get() or _process_backend


def set_backend(name: str) -> None:
    """Make `name` the process-wide default backend."""
    global _process_backend
    _process_backend = _checked(name)


def get_backend(name: str | None = None) -> ModuleType:
    """The backend module `name` (default: the current one); "torch" imports PyTorch on first use."""
    return importlib.import_module(f"engine.{_checked(name or current_backend())}_backend")


@contextmanager
def use_backend(name: str) -> Iterator[ModuleType]:
    """Run engine.<function> calls in this block (this thread / task only) on backend `name`."""
    module = get_backend(name)
    token = _block_backend.set(name)
    try:
        yield module
    finally:
        _block_backend.reset(token)


def _dispatching(reference: Callable[P, R]) -> Callable[P, R]:
    """`reference` (a NumPy function) made to run the current backend's function of the same name."""
    name = reference.__name__

    @functools.wraps(reference)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        backend = _block_backend.get() or _process_backend
        if backend == "numpy":  # the hot path: no module lookup
            return reference(*args, **kwargs)
        chosen: Callable[P, R] = getattr(get_backend(backend), name)
        return chosen(*args, **kwargs)

    return call


softmax = _dispatching(_numpy.softmax)
causal_mask = _dispatching(_numpy.causal_mask)
padding_mask = _dispatching(_numpy.padding_mask)
scaled_dot_product_attention = _dispatching(_numpy.scaled_dot_product_attention)
additive_attention = _dispatching(_numpy.additive_attention)
multi_head_attention = _dispatching(_numpy.multi_head_attention)
feed_forward = _dispatching(_numpy.feed_forward)
layer_norm = _dispatching(_numpy.layer_norm)
batch_norm = _dispatching(_numpy.batch_norm)
encoder_layer = _dispatching(_numpy.encoder_layer)
decoder_layer = _dispatching(_numpy.decoder_layer)
sinusoidal_encoding = _dispatching(_numpy.sinusoidal_encoding)
offset_rotation = _dispatching(_numpy.offset_rotation)
encoding_dot = _dispatching(_numpy.encoding_dot)
encoding_sq_distance = _dispatching(_numpy.encoding_sq_distance)
mha_params = _dispatching(_numpy.mha_params)
ffn_params = _dispatching(_numpy.ffn_params)
layer_norm_params = _dispatching(_numpy.layer_norm_params)
encoder_layer_params = _dispatching(_numpy.encoder_layer_params)
decoder_layer_params = _dispatching(_numpy.decoder_layer_params)
stack_params = _dispatching(_numpy.stack_params)
output_projection_params = _dispatching(_numpy.output_projection_params)
head_projection_params = _dispatching(_numpy.head_projection_params)
score_entries = _dispatching(_numpy.score_entries)
label_smoothing_targets = _dispatching(_numpy.label_smoothing_targets)
smoothed_cross_entropy = _dispatching(_numpy.smoothed_cross_entropy)
warmup_lr = _dispatching(_numpy.warmup_lr)
teacher_forcing_inputs = _dispatching(_numpy.teacher_forcing_inputs)
dot_product_variance = _dispatching(_numpy.dot_product_variance)
attention_shapes = _dispatching(_numpy.attention_shapes)

__all__ = [
    "BACKENDS",
    "PUBLIC_API",
    "current_backend",
    "get_backend",
    "set_backend",
    "use_backend",
    *PUBLIC_API,
]
