"""Shapes of every tensor in multi-head attention, numeric or symbolic (NumPy backend)."""

from __future__ import annotations

from engine._common import head_width

# A dimension is a number or a symbolic name such as "B" or "T".
Dim = int | str


def default_head_width(d_model: Dim, h: Dim, name: str) -> Dim:
    """d_model / h when both are numbers (it must divide exactly), else the symbol `name`."""
    if isinstance(d_model, str) or isinstance(h, str):
        return name
    return head_width(d_model, h)


def product(a: Dim, b: Dim) -> Dim:
    """a·b as a number, or the string "a*b" when either factor is symbolic."""
    if isinstance(a, str) or isinstance(b, str):
        return f"{a}*{b}"
    return a * b


def attention_shapes(
    B: Dim, T_q: Dim, d_model: Dim, h: Dim, T_k: Dim | None = None, d_k: Dim | None = None, d_v: Dim | None = None
) -> dict[str, tuple[Dim, ...]]:
    """Shapes in one MHA call; T_k defaults to T_q (self-attention), d_k and d_v to d_model / h.

    W_Q, W_K, W_V, Q, K, V, A_head and Z_head are per head; *_heads stack all heads.
    """
    T_k = T_q if T_k is None else T_k
    d_k = default_head_width(d_model, h, "d_k") if d_k is None else d_k
    d_v = default_head_width(d_model, h, "d_v") if d_v is None else d_v
    concat_width = product(h, d_v)
    return {
        "X_q": (B, T_q, d_model),
        "X_kv": (B, T_k, d_model),
        "W_Q": (d_model, d_k),
        "W_K": (d_model, d_k),
        "W_V": (d_model, d_v),
        "Q": (B, T_q, d_k),
        "K": (B, T_k, d_k),
        "V": (B, T_k, d_v),
        "Q_heads": (B, h, T_q, d_k),
        "K_heads": (B, h, T_k, d_k),
        "V_heads": (B, h, T_k, d_v),
        "A": (B, h, T_q, T_k),
        "A_head": (B, T_q, T_k),
        "Z_head": (B, T_q, d_v),
        "concat": (B, T_q, concat_width),
        "W_O": (concat_width, d_model),
        "out": (B, T_q, d_model),
    }
