"""Grading: reading what a student typed, comparing it with the expected answer, scoring, naming the mistake.

Owns: ``expr`` (the bounded expression evaluator shared with templates), ``answers`` (one reader
per answer kind, and ``describe`` to show a value as it was read), ``verdict`` (tolerances,
``AnswerSpec``, ``grade`` → ``Verdict`` with score, feedback and the misconception, ``values_match``).
May import: ``quizzer.common`` and NumPy. Never the bank, the UI, an exporter or torch: grading
is pure, so the app, the CLI, the exports and the report all grade the same way.
"""
