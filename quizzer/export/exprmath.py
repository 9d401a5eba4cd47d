"""A typed expression (``3*n*a + 2*a``) as LaTeX (``3na + 2a``), shown beside it on the answer sheets.

The expression is read by quizzer's own parser (:func:`quizzer.grading.readers.read_expression`:
``^`` and implicit products already normalised) and its syntax tree written out by
:mod:`quizzer.text.exprtext`, which the terminal shares.  Not SymPy: its parser evaluates text
with ``eval``, and these expressions come from YAML files (SECURITY.md).
"""

from __future__ import annotations

from quizzer.grading.readers import read_expression
from quizzer.text.exprtext import expression_latex as tree_latex


def expression_latex(text: str) -> str:
    """LaTeX for the typed expression ``text`` (raises the parser's error for one that is not an expression)."""
    return tree_latex(read_expression(text).compiled.tree.body)
