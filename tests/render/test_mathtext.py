"""LaTeX math → Unicode rendering for the terminal (quizzer.text.mathtext)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.text import mathtext
from quizzer.text.mathtext import latex_to_unicode, render_math, terminal_text

# (id, LaTeX, expected Unicode); every expectation was checked by eye.
INLINE = [
    # fractions
    ("frac-simple", r"\frac{a}{b}", "a/b"),
    ("frac-numbers", r"\frac{1}{2}", "1/2"),
    ("frac-compound-numerator", r"\frac{a+1}{b}", "(a+1)/b"),
    ("frac-compound-denominator", r"\frac{a}{b+1}", "a/(b+1)"),
    ("frac-product-denominator", r"\frac{1}{2d}", "1/(2d)"),
    ("frac-product-numerator", r"\frac{2df}{3}", "2df/3"),
    ("frac-nested-numerator", r"\frac{\frac{a}{b}}{c}", "(a/b)/c"),
    ("frac-nested-denominator", r"\frac{a}{\frac{b}{c}}", "a/(b/c)"),
    ("frac-negative-numerator", r"\frac{-1}{2}", "-1/2"),
    ("frac-negative-denominator", r"\frac{a}{-b}", "a/(-b)"),
    ("tfrac-bare-args", r"\tfrac12", "1/2"),
    ("dfrac", r"\dfrac{a}{b}", "a/b"),
    ("frac-partial", r"\frac{\partial L}{\partial W}", "∂L/∂W"),
    ("frac-then-factor", r"\frac{a}{b}c", "(a/b)c"),
    ("frac-then-frac", r"\frac{a}{b}\frac{c}{d}", "(a/b)(c/d)"),
    ("frac-after-operator", r"\log\frac{a}{b}", "log(a/b)"),
    ("frac-before-sum", r"\frac{1}{n}\sum_i x_i", "(1/n) ∑ᵢ xᵢ"),
    ("frac-squared", r"{\frac{a}{b}}^2", "(a/b)²"),
    ("frac-softmax", r"\frac{\exp(x_i)}{\sum_j\exp(x_j)}", "exp(xᵢ)/(∑ⱼ exp(xⱼ))"),
    ("frac-in-superscript", r"x^{\frac{1}{2}}", "x¹ᐟ²"),
    # roots
    ("sqrt-token", r"\sqrt{x}", "√x"),
    ("sqrt-number", r"\sqrt{2}", "√2"),
    ("sqrt-compound", r"\sqrt{x+1}", "√(x+1)"),
    ("sqrt-product", r"\sqrt{2d}", "√(2d)"),
    ("sqrt-cube", r"\sqrt[3]{x}", "∛x"),
    ("sqrt-fourth", r"\sqrt[4]{x}", "∜x"),
    ("sqrt-nth", r"\sqrt[n]{x}", "ⁿ√x"),
    ("sqrt-index-without-superscript", r"\sqrt[q]{x}", "x^(1/q)"),
    ("sqrt-subscripted", r"\sqrt{d_k}", "√dₖ"),
    ("sqrt-word-subscript", r"\sqrt{d_{model}}", "√d_model"),
    ("attention-scale", r"\frac{QK^\top}{\sqrt{d_k}}", "QKᵀ/√dₖ"),
    ("attention", r"\operatorname{softmax}(QK^\top/\sqrt{d_k})V", "softmax(QKᵀ/√dₖ)V"),
    # superscripts
    ("sup-digit", "x^2", "x²"),
    ("sup-fraction", "x^{-1/2}", "x⁻¹ᐟ²"),
    ("sup-T", "A^{T}", "Aᵀ"),
    ("sup-top", r"A^\top", "Aᵀ"),
    ("sup-top-braced", r"A^{\top}", "Aᵀ"),
    ("sup-letters", "x^{2i/d}", "x²ⁱᐟᵈ"),
    ("sup-rope", "10000^{-2i/d}", "10000⁻²ⁱᐟᵈ"),
    ("sup-word-command", r"x^{\max}", "x^(max)"),
    ("sup-text", r"x^{\text{th}}", "x^(th)"),
    ("sup-no-unicode-letter", "W^Q", "W^Q"),
    ("sup-bare-then-letter", "W^QK", "W^(Q)K"),
    ("sup-decimal", "x^{0.5}", "x^(0.5)"),
    ("sup-greek-missing", r"e^{i\pi}", "e^(iπ)"),
    ("sup-parenthesised", "W^{(l)}", "W⁽ˡ⁾"),
    ("sup-nested", "a^{b^c}", "a^(bᶜ)"),
    ("sup-star", r"\theta^*", "θ^*"),
    ("sup-degree", r"90^\circ", "90°"),
    ("sup-prime", r"f^{\prime}", "f′"),
    # subscripts
    ("sub-digit", "W_1", "W₁"),
    ("sub-greek-base", r"\omega_i", "ωᵢ"),
    ("sub-expression", "x_{t-1}", "xₜ₋₁"),
    ("sub-expression-s", "s_{t-1}", "sₜ₋₁"),
    ("sub-k", "d_k", "dₖ"),
    ("sub-word", "d_{model}", "d_model"),
    ("sub-word-then-letter", "d_{model}x", "d_(model)x"),
    ("sub-text", r"d_{\text{model}}", "d_model"),
    ("sub-text-unbraced", r"d_\text{ff}", "d_ff"),
    ("sub-operator-word", r"x_{\max}", "x_max"),
    ("sub-rm", r"N_{\rm layer}", "N_layer"),
    ("sub-comma", "x_{i,j}", "x_(i,j)"),
    ("sub-less-than", "y_{<t}", "y_(<t)"),
    ("sub-and-sup", "h_t^{(l)}", "hₜ⁽ˡ⁾"),
    ("sub-greek-missing", r"\nabla_\theta L", "∇_(θ)L"),
    # Greek letters
    (
        "greek-lower",
        r"\alpha\beta\gamma\delta\epsilon\varepsilon\eta\theta\lambda\mu\pi\sigma\tau\omega",
        "αβγδϵεηθλμπστω",
    ),
    ("greek-upper", r"\Sigma\Delta\Omega\Gamma", "ΣΔΩΓ"),
    # operators, relations, symbols
    ("cdot-times", r"a\cdot b\times c", "a·b × c"),
    ("le-leq-ge-ne", r"a\le b\leq c\ge d\ne e", "a ≤ b ≤ c ≥ d ≠ e"),
    ("approx", r"a\approx b", "a ≈ b"),
    ("infty-to", r"x\to\infty", "x → ∞"),
    ("rightarrow", r"a\rightarrow b", "a → b"),
    ("in", r"x\in X", "x ∈ X"),
    ("sum-limits", r"\sum_{i=1}^{n} x_i", "∑ᵢ₌₁ⁿ xᵢ"),
    ("sum-capital-limit", r"\sum_{i=1}^{N}", "∑ᵢ₌₁^N"),
    ("sum-limits-keyword", r"\sum\limits_{i} x_i", "∑ᵢ xᵢ"),
    ("prod", r"\prod_t p_t", "∏ₜ pₜ"),
    ("integral", r"\int_0^1 f(x)\,dx", "∫₀¹ f(x) dx"),
    ("log-space", r"\log p(x)", "log p(x)"),
    ("log-after-number", r"2\log x", "2 log x"),
    ("exp-paren", r"\exp(-x)", "exp(-x)"),
    ("max-min", r"\max(a,b)-\min(a,b)", "max(a,b)-min(a,b)"),
    ("max-sub", r"\max_i x_i", "maxᵢ xᵢ"),
    ("argmax", r"\arg\max_i x_i", "arg maxᵢ xᵢ"),
    ("sin-cos", r"\sin x+\cos\theta", "sin x+cos θ"),
    ("tanh", r"\tanh(x)", "tanh(x)"),
    ("lim", r"\lim_{n\to\infty} a_n", "lim_(n → ∞) aₙ"),
    ("operatorname", r"\operatorname{LayerNorm}(x)", "LayerNorm(x)"),
    ("operatorname-star", r"\operatorname*{arg\,max}_y p(y)", "arg max_y p(y)"),
    ("mathrm", r"\mathrm{d}x", "dx"),
    ("text-keeps-spaces", r"\text{if } x>0", "if x>0"),
    ("text-apostrophe", r"\text{don't}", "don't"),
    ("mathbf-letter", r"\mathbf{x}^\top\mathbf{y}", "𝐱ᵀ𝐲"),
    ("mathbf-matrix", r"\mathbf{W}_1", "𝐖₁"),
    ("mathbf-one", r"\mathbf 1", "𝟏"),
    ("boldsymbol-greek", r"\boldsymbol{\alpha}", "𝛂"),
    ("mathbb-bare", r"\mathbb R", "ℝ"),
    ("mathbb-braced", r"\mathbb{R}^{d}", "ℝᵈ"),
    ("mathbb-times", r"\mathbb{R}^{n\times d}", "ℝ^(n × d)"),
    ("mathbb-expectation", r"\mathbb{E}_{x\sim p}[f(x)]", "𝔼_(x∼p)[f(x)]"),
    ("mathcal", r"\mathcal{L}", "ℒ"),
    ("norm", r"\lVert x \rVert", "‖x‖"),
    ("norm-shorthand", r"\|x\|_2", "‖x‖₂"),
    ("abs", r"\lvert x\rvert", "|x|"),
    ("left-right", r"\left(x+y\right)", "(x+y)"),
    ("left-right-norm", r"\left\lVert x\right\rVert", "‖x‖"),
    ("left-dot", r"\left.x\right|", "x|"),
    ("left-right-squared", r"\left(\frac{a}{b}\right)^2", "(a/b)²"),
    ("spaces", r"a\,b\;c\ d", "a b c d"),
    ("quad", r"a\quad b", "a  b"),
    ("braces", r"\{1,2\}", "{1,2}"),
    ("dots", r"\ldots\dots\cdots", "………"),
    ("mid", r"p(y\mid x)", "p(y|x)"),
    ("prime-command", r"f^\prime", "f′"),
    ("prime-apostrophes", "f''(x)", "f′′(x)"),
    ("partial-nabla", r"\partial_t\nabla", "∂ₜ∇"),
    ("odot", r"x\odot y", "x⊙y"),
    ("top-alone", r"x\top", "xᵀ"),
    ("hat", r"\hat{x}", "x\u0302"),
    ("hat-with-subscript", r"\hat{y}_i", "y\u0302ᵢ"),
    ("bar", r"\bar{x}", "x\u0304"),
    ("bar-several", r"\bar{xy}", "x\u0305y\u0305"),
    ("tilde", r"\tilde{x}", "x\u0303"),
    ("tilde-several", r"\tilde{xy}", "tilde(xy)"),
    ("thousands", r"10{,}000", "10,000"),
    ("percent", r"50\%", "50%"),
    ("not-equal", r"a\not= b", "a ≠ b"),
    ("binom", r"\binom{n}{k}", "C(n,k)"),
    ("overset", r"\overset{\text{def}}{=}", "= ^(def)"),
    ("underbrace", r"\underbrace{a+b}_{2}", "(a+b)₂"),
    # environments, inline
    ("bmatrix-row", r"\begin{bmatrix} 1 & 0 \end{bmatrix}", "[1, 0]"),
    (
        "bmatrix-2x2",
        r"\begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}",
        "[[1, 0], [0, 1]]",
    ),
    ("pmatrix", r"\begin{pmatrix}a&b\\c&d\end{pmatrix}", "[[a, b], [c, d]]"),
    ("matrix", r"\begin{matrix}a&b\end{matrix}", "[a, b]"),
    ("vmatrix", r"\begin{vmatrix}a&b\\c&d\end{vmatrix}", "|[[a, b], [c, d]]|"),
    ("column-vector", r"\begin{bmatrix}1\\2\end{bmatrix}", "[[1], [2]]"),
    ("matrix-trailing-row-break", r"\begin{bmatrix}1&2\\\end{bmatrix}", "[1, 2]"),
    (
        "cases",
        r"\begin{cases} x & \text{if } x>0 \\ 0 & \text{otherwise} \end{cases}",
        "{x, if x>0; 0, otherwise}",
    ),
    ("aligned", r"\begin{aligned}a&=b\\&=c\end{aligned}", "a = b; = c"),
    ("left-matrix", r"\left(\begin{matrix}1&2\end{matrix}\right)", "[1, 2]"),
    (
        "left-array-determinant",
        r"\left|\begin{array}{cc}1&2\\3&4\end{array}\right|",
        "|[[1, 2], [3, 4]]|",
    ),
    (
        "left-array-cases",
        r"\left\{\begin{array}{ll}x & x\ge0\\ -x & x<0\end{array}\right.",
        "{x, x ≥ 0; -x, x<0}",
    ),
    ("left-without-matrix", r"\left ab\right)", "ab)"),
    # unknown commands and broken input
    ("unknown-command", r"\foo", "foo"),
    ("unknown-command-arg", r"\foo{x}", "foox"),
    ("unbalanced-open", r"{{{a", "a"),
    ("unbalanced-close", r"}}}a", "a"),
    ("unbalanced-frac", r"\frac{a", "a/()"),
    ("lone-backslash", "a\\", "a"),
    ("unclosed-environment", r"\begin{bmatrix}1&2", "[1, 2]"),
    ("plain", "x + 1", "x+1"),
    # real course formulas
    (
        "course-masked-attention",
        r"\operatorname{softmax}(QK^\top/\sqrt{d_k}+M)V",
        "softmax(QKᵀ/√dₖ+M)V",
    ),
    (
        "course-multihead",
        r"\operatorname{Concat}(H_1,\ldots,H_h)W^O",
        "Concat(H₁,…,Hₕ)W^O",
    ),
    ("course-ffn", r"\operatorname{ReLU}(xW_1+b_1)W_2+b_2", "ReLU(xW₁+b₁)W₂+b₂"),
    ("course-params", "4d^2+2df", "4d²+2df"),
    ("course-sinusoid", r"PE(p,2i)=\sin(p\omega_i)", "PE(p,2i) = sin(pωᵢ)"),
    ("course-frequency", r"\omega_i=10000^{-2i/d}", "ωᵢ = 10000⁻²ⁱᐟᵈ"),
    (
        "course-noam-schedule",
        r"\eta(s)=d^{-1/2}\min(s^{-1/2},s\,w^{-3/2})",
        "η(s) = d⁻¹ᐟ² min(s⁻¹ᐟ²,s w⁻³ᐟ²)",
    ),
    (
        "course-label-smoothing",
        r"q_i=(1-\varepsilon)\mathbf1[i=y]+\varepsilon/V",
        "qᵢ = (1-ε)𝟏[i = y]+ε/V",
    ),
    ("course-pe-norm", r"\lVert PE(p)\rVert_2^2=d/2", "‖PE(p)‖₂² = d/2"),
    (
        "course-softmax-values",
        r"(e^2/(e^2+e),e/(e^2+e),0,0)\approx(0.7311,0.2689,0,0)",
        "(e²/(e²+e),e/(e²+e),0,0) ≈ (0.7311,0.2689,0,0)",
    ),
    (
        "course-layernorm",
        r"y_i=\gamma_i\frac{x_i-\mu}{\sqrt{\sigma^2+\epsilon}}+\beta_i",
        "yᵢ = γᵢ(xᵢ-μ)/√(σ²+ϵ)+βᵢ",
    ),
    (
        "course-layer-params",
        r"N_{\rm layer}=2(4d^2+4d)+(2df+f+d)+6d",
        "N_layer = 2(4d²+4d)+(2df+f+d)+6d",
    ),
    (
        "course-autoregressive",
        r"p(y\mid x)=\prod_t p(y_t\mid y_{<t},x)",
        "p(y|x) = ∏ₜ p(yₜ|y_(<t),x)",
    ),
    ("course-projections", r"Q=XW^Q,\ K=XW^K", "Q = XW^Q, K = XW^K"),
]


@pytest.mark.parametrize(
    ("tex", "expected"), [pytest.param(t, e, id=i) for i, t, e in INLINE]
)
def test_latex_to_unicode(tex: str, expected: str) -> None:
    assert latex_to_unicode(tex) == expected


def test_inline_ids_are_unique() -> None:
    ids = [i for i, _, _ in INLINE]
    assert len(ids) == len(set(ids))


# (id, Markdown, expected); display blocks are drawn on their own lines.
MARKDOWN = [
    ("inline", "Compute $x^2$ now.", "Compute x² now."),
    ("two-inline", "$a_1$ and $a_2$", "a₁ and a₂"),
    ("dollar-amounts", "It costs $5 and $6.", "It costs $5 and $6."),
    ("dollar-amount-decimal", "price $5.00 and $x_1$", "price $5.00 and x₁"),
    ("escaped-dollars", r"\$x\$ stays", r"\$x\$ stays"),
    ("escaped-dollar-in-math", r"$\$5$", "$5"),
    ("space-after-open", "$ x$", "$ x$"),
    ("space-before-close", "$x $", "$x $"),
    ("digit-after-close", "$x$5", "$x$5"),
    ("code-span", "`$x$` and $y$", "`$x$` and y"),
    ("double-backtick-code", "``a `$x$` b`` and $z$", "``a `$x$` b`` and z"),
    ("fenced-code", "```\n$x$\n```\n$y$", "```\n$x$\n```\ny"),
    ("tilde-fence", "~~~python\n$x$\n~~~\n", "~~~python\n$x$\n~~~\n"),
    ("no-math", "plain text", "plain text"),
    ("display-own-line", "Let\n$$x^2$$\nthen", "Let\n    x²\nthen"),
    ("display-multiline-source", "$$\n\\frac{a}{b}\n$$", "    a/b"),
    ("display-mid-line", "Let $$x$$ be", "Let \n    x\nbe"),
    (
        "display-bmatrix",
        "$$\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$$",
        "    ⎡ 1 0 ⎤\n    ⎣ 0 1 ⎦",
    ),
    (
        "display-decimal-alignment",
        "$$\\begin{bmatrix}1.0 & -0.5\\\\ 0.25 & 2.0\\end{bmatrix}$$",
        "    ⎡ 1.0  -0.5 ⎤\n    ⎣ 0.25  2.0 ⎦",
    ),
    (
        "display-matrix-with-lhs",
        "$$x=\\begin{bmatrix}1\\\\-2\\\\3.5\\end{bmatrix}$$",
        "      ⎡  1   ⎤\n    x=⎢ -2   ⎥\n      ⎣  3.5 ⎦",
    ),
    (
        "display-pmatrix-transpose",
        "$$\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}^\\top$$",
        "    ⎛ a b ⎞ᵀ\n    ⎝ c d ⎠",
    ),
    (
        "display-vmatrix",
        "$$\\begin{vmatrix}a&b\\\\c&d\\end{vmatrix}=ad-bc$$",
        "    │ a b │=ad-bc\n    │ c d │",
    ),
    (
        "display-left-right-matrix",
        "$$\\left[\\begin{matrix}1&2\\\\3&4\\end{matrix}\\right]$$",
        "    ⎡ 1 2 ⎤\n    ⎣ 3 4 ⎦",
    ),
    (
        "display-two-matrices",
        "$$\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}\\begin{pmatrix}x\\\\y\\end{pmatrix}$$",
        "    ⎛ a b ⎞ ⎛ x ⎞\n    ⎝ c d ⎠ ⎝ y ⎠",
    ),
    (
        "display-3x3",
        "$$\\begin{Bmatrix}1&0&0\\\\0&1&0\\\\0&0&1\\end{Bmatrix}$$",
        "    ⎧ 1 0 0 ⎫\n    ⎨ 0 1 0 ⎬\n    ⎩ 0 0 1 ⎭",
    ),
    ("display-one-row-matrix", "$$\\begin{bmatrix}1&0\\end{bmatrix}$$", "    [1, 0]"),
    (
        "display-cases",
        "$$f(x)=\\begin{cases} x & \\text{if } x>0 \\\\ "
        "0 & \\text{otherwise}\\end{cases}$$",
        "    f(x)=⎧ x  if x>0\n         ⎩ 0  otherwise",
    ),
    (
        "display-array-cases",
        "$$|x|=\\left\\{\\begin{array}{ll}"
        "x & x\\ge0\\\\ -x & x<0\\end{array}\\right.$$",
        "    |x|=⎧ x   x≥0\n        ⎩ -x  x<0",
    ),
    (
        "display-aligned",
        "$$\\begin{aligned} a &= b+c \\\\ &= d \\end{aligned}$$",
        "    a=b+c\n     =d",
    ),
    (
        "display-in-list-item",
        "- item\n  $$\\begin{bmatrix}1&0\\\\0&1\\end{bmatrix}$$",
        "- item\n      ⎡ 1 0 ⎤\n      ⎣ 0 1 ⎦",
    ),
    (
        "inline-bmatrix-in-text",
        "$\\begin{bmatrix}1&0\\\\0&1\\end{bmatrix}$ is $I$",
        "[[1, 0], [0, 1]] is I",
    ),
]


@pytest.mark.parametrize(
    ("markdown", "expected"), [pytest.param(m, e, id=i) for i, m, e in MARKDOWN]
)
def test_render_math(markdown: str, expected: str) -> None:
    assert render_math(markdown) == expected


def test_realistic_prompt() -> None:
    prompt = (
        "**Attention.** With $Q\\in\\mathbb{R}^{n\\times d_k}$ compute\n"
        "$$\\operatorname{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V$$\n"
        "where `d_k` is the key width. It costs $5."
    )
    assert render_math(prompt) == (
        "**Attention.** With Q ∈ ℝ^(n × dₖ) compute\n"
        "    softmax(QKᵀ/√dₖ)V\n"
        "where `d_k` is the key width. It costs $5."
    )


# -- robustness -------------------------------------------------------------

LATEX_BITS = st.sampled_from(
    [
        r"\frac", r"\sqrt", "[", "]", "{", "}", "^", "_", "&", "\\\\", "$", "$$",
        "`", "```", r"\begin{bmatrix}", r"\end{bmatrix}", r"\begin{cases}",
        r"\left", r"\right", ".", r"\text{a b}", r"\text{", "x", "12", r"\alpha",
        r"\mathbf", r"\hat", r"\not", r"\operatorname*", "'", " ", "\n", r"\foo",
        r"\overset", r"\begin{array}", r"\left(\begin{matrix}", r"\end{matrix}",
        r"\left\{", r"\right.", "|", "(", ")", "-", "/", r"\mathbb", r"\sum",
        r"\max", r"\limits", "\\", r"\binom", r"\textcolor", "~", r"\$",
    ]
)  # fmt: skip
LATEXISH = st.one_of(st.text(), st.lists(LATEX_BITS, max_size=40).map("".join))
FUZZ = settings(
    max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@FUZZ
@given(LATEXISH)
def test_latex_to_unicode_never_raises(tex: str) -> None:
    assert "\n" not in latex_to_unicode(tex)


@FUZZ
@given(LATEXISH)
def test_render_math_never_raises(markdown: str) -> None:
    assert isinstance(render_math(markdown), str)


@settings(max_examples=500, deadline=None)
@given(st.text().map(lambda s: s.replace("$", "")))
def test_text_without_dollars_is_untouched(text: str) -> None:
    assert render_math(text) == text


@pytest.mark.parametrize(
    "tex",
    [
        "{" * 500 + "x",
        r"\sqrt" * 500 + "x",
        r"\left" * 1000,
        r"\frac" * 300,
        r"\begin{matrix}" * 200,
        r"\sqrt[" * 300,
        "x^{" * 300,
    ],
    ids=["braces", "sqrt", "left", "frac", "matrix", "sqrt-index", "superscripts"],
)
def test_deep_nesting_does_not_crash(tex: str) -> None:
    assert isinstance(latex_to_unicode(tex), str)
    assert isinstance(render_math(f"$${tex}$$"), str)


# -- constraints on the module ----------------------------------------------


def test_imports_only_the_standard_library() -> None:
    """The renderer runs on every prompt shown: its package imports the standard library and itself only."""
    for path in Path(mathtext.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        modules |= {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
        assert not any(node.level for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)), path.name
        outside = {m for m in modules if not m.startswith("quizzer.text.")}
        assert {m.split(".")[0] for m in outside} <= set(sys.stdlib_module_names) | {"__future__"}, path.name


QUESTION = r"""**Positional encodings.** For position $p$ and dimension index $i$ the
encoding is $PE(p,2i)=\sin(p\omega_i)$ and $PE(p,2i+1)=\cos(p\omega_i)$ with
frequencies $\omega_i=10000^{-2i/d}$, where $d$ is the model width ($d=512$ in the
base model).

(a) Show that $\lVert PE(p)\rVert_2^2=d/2$ for every position $p$.

(b) Explain why $PE(p+k)$ is a linear function of $PE(p)$ for any fixed offset $k$;
give the $2\times 2$ matrix that maps the pair $(\sin(p\omega_i),\cos(p\omega_i))$
to the pair at $p+k$:
$$R_k=\begin{bmatrix}\cos(k\omega_i) & \sin(k\omega_i)\\
-\sin(k\omega_i) & \cos(k\omega_i)\end{bmatrix}$$

(c) A student claims the encoding costs $5 of compute per token. Would the learned
alternative with $N\cdot d$ extra parameters be cheaper? Answer in `numpy` terms.

(d) With label smoothing the target is $q_i=(1-\varepsilon)\mathbf1[i=y]+\varepsilon/V$;
compute $\sum_{i=1}^{V} q_i$.
"""


RENDERED_QUESTION = """\
**Positional encodings.** For position p and dimension index i the
encoding is PE(p,2i) = sin(pωᵢ) and PE(p,2i+1) = cos(pωᵢ) with
frequencies ωᵢ = 10000⁻²ⁱᐟᵈ, where d is the model width (d = 512 in the
base model).

(a) Show that ‖PE(p)‖₂² = d/2 for every position p.

(b) Explain why PE(p+k) is a linear function of PE(p) for any fixed offset k;
give the 2 × 2 matrix that maps the pair (sin(pωᵢ),cos(pωᵢ))
to the pair at p+k:
    Rₖ=⎡  cos(kωᵢ)  sin(kωᵢ) ⎤
       ⎣ -sin(kωᵢ)  cos(kωᵢ) ⎦

(c) A student claims the encoding costs $5 of compute per token. Would the learned
alternative with N·d extra parameters be cheaper? Answer in `numpy` terms.

(d) With label smoothing the target is qᵢ = (1-ε)𝟏[i = y]+ε/V;
compute ∑ᵢ₌₁^V qᵢ.
"""


def test_question_end_to_end() -> None:
    assert render_math(QUESTION) == RENDERED_QUESTION


@pytest.mark.parametrize(("markdown", "expected"), [
    ("act on the **scores, before** the softmax", "act on the scores, before the softmax"),
    ("**$\\sqrt{d_k}$**, not $d_k$", "√dₖ, not dₖ"),
    ("`x ** 2` and `**kwargs`", "`x ** 2` and `**kwargs`"),  # code keeps its stars
    ("```\n**a**\n```\n**b** and 2 ** 3", "```\n**a**\n```\nb and 2 ** 3"),  # a lone ** is not bold
    ("a *single* star", "a *single* star"),
])
def test_terminal_text_drops_bold_marks_outside_code(markdown: str, expected: str) -> None:
    assert terminal_text(markdown) == expected
