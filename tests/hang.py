"""The suite's one hang guard: how long a test waits for a process or a state before calling it hung.

A guard, never a timing: no test asserts how fast anything is (speed is ``make bench``'s, as ratios).
It is wall-clock time because a deadlock spends no processor time.  So it must hold on the busiest
machine the suite meets: eight clean-clone runs at once beside four CPU-bound processes (a load of
25-30 on two cores) gave each process about a fourteenth of a core, and a ``quizzer serve`` refusal
that takes 1.5 s on an idle machine outlasted the 90 s it was then given.
"""

HANG_SECONDS = 600.0
