"""Grading: reading what a student typed, comparing it with the expected answer, scoring, naming the mistake.

Owns, from the bottom up:
``budget`` one budget of steps, work, elements and time per template instance or typed answer;
``expr`` the bounded expression evaluator shared with templates (the security boundary);
``typed`` typed maths into that language: ``clean``, ``normalize``, powers of ten, the arithmetic
checks, ``AnswerFormatError`` and ``ExpressionAnswer``;
``describe`` a value as it was read (``describe``, ``format_number``);
``readers`` one reader per answer kind (``read_real``, ``parse_number`` … ``parse_text``, ``as_shape``);
``choices`` reading choice and multi answers;
``ordering`` reading an order of steps (letters) and scoring it by ordered pairs;
``parse`` ``parse(kind, text)`` by kind, the ``MAX_ANSWER_CHARS`` cap, and ``preview`` for the answer box;
``tolerance`` ``Tolerance``, ``half_unit``, ``DEFAULT_SIG``, and the asked ``Precision`` (read from a
prompt) with ``short_of_precision``; ``digits`` the digits each typed number gives (``0.20``: two decimals);
``match`` ``values_match`` per kind, and expression equivalence by sampling;
``hints`` the words of a wrong answer's feedback (sign, power of ten, entries off, precision);
``verdict`` ``AnswerSpec``, ``WrongAnswer``, ``grade`` / ``self_grade`` → ``Verdict`` with score,
feedback and the misconception;
``parts`` a multi-part question's answers graded in order, with follow-through (``PartVerdict``).
May import: ``quizzer.common``, ``quizzer.text`` (an expression shown as maths) and NumPy. Never the
bank, the UI, an exporter or torch: grading is pure, so the app, the CLI, the exports and the
report all grade the same way.
"""
