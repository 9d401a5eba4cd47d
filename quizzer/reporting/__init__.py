"""Reporting: what a teacher reads about a class and the bank.

Owns: ``queries`` (a class's attempts loaded from the bank, for a session it is given), ``report``
(mastery distribution, frequent misconceptions, hardest questions, learners behind), ``items``
(item analysis: facility, discrimination, flags, per paper) and ``rasch`` (the 1PL fit, NumPy),
``render`` and ``render_items`` (the report as text, md, html or json), ``coverage`` (which
topics the templates cover).
May import: ``quizzer.learning`` (the mastery model), ``bank``, ``templates``, ``common``. Never a face.
"""
