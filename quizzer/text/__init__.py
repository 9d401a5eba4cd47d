"""LaTeX maths in Markdown as Unicode text for a terminal (also the LaTeX→Unicode symbol table the exports share).

Owns: ``mathtext`` (``render_math``, ``latex_to_unicode``) and its parts.
May import: the standard library only; it runs every time a prompt or solution is shown.
"""
