"""The plan: what to practise, today and next, to score the most on the exam day.

Owns: ``weights`` (each topic's exam weight: routed records, a stated default for Week 1, a teacher's
override file), ``state`` (one learner's history folded into what the plan reads: mastery, a memory
card per topic, today's answers, their pace), ``forecast`` (the planner's model: the predicted
chance of a right answer on a topic on a future day, and the expected gain of one more question),
``picker`` (the next question: the rules a student expects, then the largest expected gain per
expected minute, with its reason), ``schedule`` (the exam date and minutes a day, days left,
today's plan and the predicted exam score).

May import: ``quizzer.learning.mastery`` and ``review``, ``templates``, ``common``.  Pure logic: no
database (``Study`` reads the bank and hands the history in), no face.
"""
