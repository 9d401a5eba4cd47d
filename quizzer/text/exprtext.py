"""A parsed expression as maths: LaTeX for the exports, Unicode for the terminal, from one walk.

The input is the syntax tree of quizzer's expression language (what
:func:`quizzer.grading.readers.read_expression` compiles, ``^`` and implicit products already
normalised), so a typed answer and a template's expected answer read alike whatever their
spelling: ``B*h*T*(T+1)/2`` and ``BhT(T+1)/2`` both show as ``BhT(T+1)/2``, ``4*d**2+2*d*f`` as
``4d² + 2df``.  Products are juxtaposed, powers become superscripts and a quotient is ``a/b``
with parentheses only where the terminal renderer needs them.  Only the ``ast`` node types the
language allows are expected; anything else is shown as Python would write it.
"""

from __future__ import annotations

import ast
import re

from quizzer.text.mathtext import latex_to_unicode

__all__ = ["expression_latex", "expression_unicode"]

GREEK = frozenset("alpha beta gamma delta epsilon varepsilon zeta eta theta lambda mu nu xi pi rho sigma tau phi "
                  "chi psi omega Gamma Delta Theta Lambda Pi Sigma Phi Psi Omega".split())
FUNCTIONS = {"sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "tanh": r"\tanh", "exp": r"\exp", "log": r"\log",
             "ln": r"\ln"}
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 4}


def expression_latex(node: ast.expr) -> str:
    """LaTeX for one expression tree: ``3*n*a + 2*a`` → ``3na + 2a``."""
    return _latex(node)


def expression_unicode(node: ast.expr) -> str:
    """One line of Unicode maths: ``4d² + 2df``, ``BhT(T+1)/2``.

    The terms of the outermost sum are spaced (``4d² + 2df``) and everything inside a term is
    set tight (``(T+1)``), as one would write it by hand; each term goes through the same LaTeX
    renderer as the prompts, so superscripts and fractions look as they do there."""
    terms = _terms(node)
    first_sign, first = terms[0]
    text = ("-" if first_sign == "-" else "") + latex_to_unicode(first)
    return text + "".join(f" {sign} {latex_to_unicode(term)}" for sign, term in terms[1:])


def _terms(node: ast.expr) -> list[tuple[str, str]]:
    """The outermost sum as (sign, LaTeX of the term) pairs, left to right."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right = _latex(node.right, 1 + isinstance(node.op, ast.Sub))  # a - (b + c) keeps its brackets
        return [*_terms(node.left), ("+" if isinstance(node.op, ast.Add) else "-", right)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return [("-", _latex(node.operand, 3))]
    return [("+", _latex(node))]


def _latex(node: ast.expr, outer: int = 0) -> str:
    if isinstance(node, ast.BinOp):
        return _binary(node, outer)
    if isinstance(node, ast.UnaryOp):
        sign = "-" if isinstance(node.op, ast.USub) else "+"
        written = sign + _latex(node.operand, 3)
        return f"\\left({written}\\right)" if outer > 1 else written
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        arguments = ", ".join(_latex(argument) for argument in node.args)
        if node.func.id == "sqrt":
            return f"\\sqrt{{{arguments}}}"
        name = FUNCTIONS.get(node.func.id, f"\\operatorname{{{node.func.id}}}")
        return f"{name}\\left({arguments}\\right)"
    if isinstance(node, ast.Name):
        return _name(node.id)
    if isinstance(node, ast.Constant):
        return str(node.value)
    return ast.unparse(node)  # anything else the language allows is shown as written


def _binary(node: ast.BinOp, outer: int) -> str:
    precedence = _PRECEDENCE.get(type(node.op), 3)
    if isinstance(node.op, ast.Div):
        return f"\\frac{{{_latex(node.left)}}}{{{_latex(node.right)}}}"
    if isinstance(node.op, ast.Pow):
        return f"{_latex(node.left, 5)}^{{{_latex(node.right)}}}"
    left = _latex(node.left, precedence)
    right = _latex(node.right, precedence + (not isinstance(node.op, (ast.Add, ast.Mult))))
    if isinstance(node.op, ast.Mult):
        written = left + _product_gap(left, right) + right
    else:
        written = f"{left} {'+' if isinstance(node.op, ast.Add) else '-'} {right}"
    return f"\\left({written}\\right)" if precedence < outer else written


def _product_gap(left: str, right: str) -> str:
    """Juxtaposition (3na) unless two numbers meet (3 \\cdot 4) or a command would run into a letter."""
    if right[:1].isdigit() or right.startswith("-"):
        return r" \cdot "
    return " " if re.search(r"\\[A-Za-z]+$", left) else ""


def _name(name: str) -> str:
    """``d_k`` → ``d_{k}``, ``alpha`` → ``\\alpha``, ``N_e`` → ``N_{e}``."""
    base, _, subscript = name.partition("_")
    base = f"\\{base}" if base in GREEK else base if len(base) == 1 else f"\\mathrm{{{base}}}"
    return f"{base}_{{{subscript}}}" if subscript else base
