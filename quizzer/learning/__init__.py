"""Learning: one learner's study session and what the bank remembers about them.

Owns: ``study`` (the session the app drives: next question, grade-and-record, the dashboard and its
paper progress; its plan methods in ``study_plan``), ``mastery`` (per-topic, guessing-aware Bayesian
mastery: the one model every face shows), ``review`` (FSRS spaced review per question), ``plan`` (what
to practise next, aiming at the exam date: a package of its own), ``policy`` (the previous "what next",
kept as the exam benchmark's baseline), ``selection`` (instances for generate/export), ``progress`` (a
learner's history as a portable file).
May import: ``quizzer.bank``, ``templates``, ``grading``, ``text``, ``common``. ``mastery``,
``review``, ``plan`` and ``policy`` are pure logic (no database); nothing here imports a face (CLI, TUI, export).
"""
