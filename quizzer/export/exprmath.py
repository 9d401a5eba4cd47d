"""A typed expression (``3*n*a + 2*a``) as LaTeX (``3na + 2a``), shown beside it on the answer sheets.

The expression is read by quizzer's own parser (:func:`quizzer.grading.readers.read_expression`:
``^`` and implicit products already normalised) and its syntax tree written out here.  Not SymPy:
its parser evaluates text with ``eval``, and these expressions come from YAML files (SECURITY.md).
"""

from __future__ import annotations

import ast
import re

from quizzer.grading.readers import read_expression

GREEK = frozenset("alpha beta gamma delta epsilon varepsilon zeta eta theta lambda mu nu xi pi rho sigma tau phi "
                  "chi psi omega Gamma Delta Theta Lambda Pi Sigma Phi Psi Omega".split())
FUNCTIONS = {"sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "tanh": r"\tanh", "exp": r"\exp", "log": r"\log",
             "ln": r"\ln"}
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 4}


def expression_latex(text: str) -> str:
    """LaTeX for the typed expression ``text`` (raises the parser's error for one that is not an expression)."""
    return _latex(read_expression(text).compiled.tree.body)


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
