"""Time every engine function on the NumPy and the PyTorch backend, side by side.

Two sizes: the toy sizes questions use (T <= 8, d <= 16) and d_model = 512 with T = 64.
Goal: NumPy <= 20 µs per call at toy sizes and >= 5x faster than PyTorch there.
Both libraries run on one thread: per-call latency is what the app sees, and spinning
BLAS/OpenMP worker threads turn any other load on the machine into millisecond outliers.
Run: .venv/bin/python bench/bench_engine.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # read when NumPy loads OpenBLAS, so set before importing it

import functools  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import engine  # noqa: E402

Args = tuple[Any, ...]
TOY = {"B": 2, "T": 8, "d": 16, "h": 4, "f": 32}
LARGE = {"B": 2, "T": 64, "d": 512, "h": 8, "f": 2048}


def layer_params(module: torch.nn.Module) -> dict[str, np.ndarray]:
    """A Transformer layer's state_dict as NumPy arrays."""
    return {name: value.numpy() for name, value in module.state_dict().items()}


def cases(size: dict[str, int]) -> dict[str, Args]:
    """Positional arguments of every public function at one size (float32 inputs)."""
    B, T, d, h, f = size["B"], size["T"], size["d"], size["h"], size["f"]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(B, T, d)).astype(np.float32)
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True)
    w = layer_params(mha)
    encoder = layer_params(torch.nn.TransformerEncoderLayer(d, h, f, dropout=0.0, batch_first=True))
    decoder = layer_params(torch.nn.TransformerDecoderLayer(d, h, f, dropout=0.0, batch_first=True))
    scores = rng.normal(size=(B, h, T, T)).astype(np.float32)
    mask = engine.causal_mask(T)
    W, U, v = (rng.normal(size=shape).astype(np.float32) for shape in ((d, d), (d, d), (d,)))
    return {
        "softmax": (scores, -1, mask),
        "causal_mask": (T,),
        "padding_mask": ([T, T // 2], T),
        "scaled_dot_product_attention": (x, x, x, mask),
        "additive_attention": (x[0], x[1, 0], W, U, v),
        "multi_head_attention": (x, x, w["in_proj_weight"], w["in_proj_bias"], w["out_proj.weight"], w["out_proj.bias"],
                                 h, mask),
        "feed_forward": (x, encoder["linear1.weight"].T, encoder["linear1.bias"], encoder["linear2.weight"].T,
                         encoder["linear2.bias"]),
        "layer_norm": (x, encoder["norm1.weight"], encoder["norm1.bias"]),
        "batch_norm": (x, encoder["norm1.weight"], encoder["norm1.bias"]),
        "encoder_layer": (x, encoder, mask),
        "decoder_layer": (x, x, decoder, mask),
        "sinusoidal_encoding": (T, d),
        "offset_rotation": (3, d),
        "encoding_dot": (3, d),
        "encoding_sq_distance": (3, d),
        "mha_params": (d,),
        "ffn_params": (d, f),
        "layer_norm_params": (d,),
        "encoder_layer_params": (d, f),
        "decoder_layer_params": (d, f),
        "stack_params": (3_152_384, 6),
        "output_projection_params": (d, 37_000),
        "head_projection_params": (d, d // h),
        "score_entries": (B, h, T, T),
        "label_smoothing_targets": (d, rng.integers(d, size=T), 0.1),
        "smoothed_cross_entropy": (x[0], rng.integers(d, size=T), 0.1),
        "warmup_lr": (4000, d),
        "teacher_forcing_inputs": (rng.integers(100, size=(B, T)), 0),
        "dot_product_variance": (rng, d // h, 64),
        "attention_shapes": (B, T, d, h),
    }


def microseconds(call: Callable[[], object], repeats: int) -> float:
    """Best of `repeats` timeit runs, each sized by autorange (>= 0.2 s), in µs per call."""
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(repeats, number)) / number * 1e6


def row(name: str, label: str, args: Args, repeats: int) -> str:
    """One table line: µs per call on each backend and their ratio."""
    functions = [getattr(engine.get_backend(backend), name) for backend in engine.BACKENDS]
    times = [microseconds(functools.partial(function, *args), repeats) for function in functions]
    return f"{name:<28} {label:>6} {times[0]:>12.1f} {times[1]:>12.1f} {times[1] / times[0]:>9.1f}x"


def main() -> None:
    """Print the table: toy sizes (best of 5) then d = 512, T = 64 (1 repeat)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    print(f"{'function':<28} {'size':>6} {'numpy µs':>12} {'torch µs':>12} {'torch/np':>10}")
    for label, size, repeats in (("toy", TOY, 5), ("d=512", LARGE, 1)):
        arguments = cases(size)
        for name in engine.PUBLIC_API:
            print(row(name, label, arguments[name], repeats), flush=True)


if __name__ == "__main__":
    main()
