"""The terminal app (Textual): a thin ``app``, one module per screen and per widget, styles in ``styles/*.tcss``.

May import: everything below it (``learning``, ``bank``, ``templates``, ``grading``, ``figures``,
``text``, ``common``). Nothing imports it but ``quizzer.cli``.
"""
