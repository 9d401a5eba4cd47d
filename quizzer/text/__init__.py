"""LaTeX maths in Markdown as Unicode text for a terminal (also the LaTeX→Unicode symbol table the exports share).

Owns: ``mathtext`` (the public entry points ``render_math`` and ``latex_to_unicode``: finding maths in
Markdown), and its parts: ``parser`` (tokeniser and recursive-descent parser, what each command does),
``layout`` (joining rendered pieces: spacing, brackets, scripts, fractions, roots), ``grid`` (multi-line
drawing: matrices, ``cases``, ``aligned``, tall brackets) and ``symbols`` (the character tables; ``SYMBOLS``
is the LaTeX→Unicode table the typst export extends).
May import: the standard library only (and each other); it runs every time a prompt or
solution is shown.
"""
