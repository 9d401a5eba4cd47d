"""One budget for everything one unit of untrusted work may spend: a template instance or a typed answer.

A template instance evaluates dozens of expressions (parameters, derived values, ``require``,
answer, misconceptions, every ``{{ … }}`` of prompt and solution); each spends from the same
:class:`Budget`, so sixty derived values just under a per-expression limit add up to one refusal,
not to a minute of work.  The budget counts

* ``steps``: evaluation steps (a call or an arithmetic operation), each a few microseconds;
* ``work``: what the calls do inside NumPy or Python, in element operations, charged **before**
  each call from its arguments' sizes by the function's cost rule (``quizzer.templates.functions``);
* ``elements``: array elements built, which bounds memory;
* a deadline in processor time (``clock``) for the whole unit, the backstop should a cost rule
  underestimate: processor time, not wall time, so a busy machine cannot make a cheap question fail.

``cost()`` folds steps and work into one number, so ``quizzer validate`` can bound the work of
all its seeds together (``quizzer.templates.validate``).  Bookkeeping is a few integer additions
per step: the budget must not slow the instances it guards.
"""

from __future__ import annotations

import contextvars
import math
import os
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

MAX_STEPS = 20_000
# One typed answer: an expression is evaluated at up to 24 points, the expected one too; a real answer
# takes a few hundred steps in all, a 2,000-character hostile one would take tens of thousands.
MAX_ANSWER_STEPS = 5_000
# Element operations inside calls: ~0.05 s of NumPy, far less of Python; the bundled bank's
# costliest instance does about 1/500 of it (SECURITY.md).
MAX_WORK = 200_000_000
MAX_ARRAY_ELEMENTS = 1_000_000
# Every array built, added up: bounds memory even when many arrays live at once ([ones(1000, 1000),
# ones(1000, 1000), …] would otherwise hold gigabytes) and bounds the work of a whole instance.
MAX_TOTAL_ELEMENTS = 4_000_000
MAX_SECONDS = 5.0
# The deadline's clock: this process's processor time (all its threads: PyTorch may compute in its own).
clock = time.process_time
# Reading processor time is a system call: about 1 µs on an idle machine, 100 µs and more while the
# test suite keeps it busy (the call is a chance for the scheduler to run another process).  The wall
# clock is no system call (0.1 µs).  The threads of a process use at most this many processors at once,
# so its processor time grows at most this many times as fast as wall time: Budget.step() reads it only
# when it could have run out, and a new budget starts from a reading taken less than FRESH_SECONDS ago
# (recent_processor_time()).
PROCESSORS = os.cpu_count() or 1
FRESH_SECONDS = 0.01
# One evaluation step (a Python-level call or operation, with the rendering and sampling around it)
# costs about as much as this many element operations inside NumPy; cost() weighs steps with it.
STEP_WORK = 5000


class Costed(NamedTuple):
    """A whitelisted function and its cost rule: from the call's arguments, before it runs, the element
    operations it will do and the elements its result will have (the evaluator charges both)."""

    function: Callable[..., Any]
    cost: Callable[..., tuple[int, int]]


class BudgetError(ValueError):
    """A budget ran out; the message is one user-facing line (the evaluator reports it as ExprError)."""


class Budget(msgspec.Struct):
    """Steps taken, element operations done, array elements built, and when time is up."""

    steps: int = 0
    max_steps: int = MAX_STEPS
    work: int = 0
    elements: int = 0
    # Processor time at which time is up: by default MAX_SECONDS after the first step (not when the budget is
    # made: most budgets that are made never take a step).
    deadline: float | None = None
    # What each template field cost, when someone asks (quizzer validate names the costliest field).
    fields: dict[str, int] | None = None
    # Wall time (perf_counter) before which the deadline cannot have passed: see step().
    next_look: float = 0.0

    def charge(self, work: int, result: int = 0) -> None:
        """Spend ``work`` element operations on a call that will build ``result`` elements; refuse it first
        if it would go over a limit, so nothing large is computed or allocated."""
        if result > MAX_ARRAY_ELEMENTS:
            raise BudgetError(f"the result would have {result:,} elements (limit {MAX_ARRAY_ELEMENTS:,})")
        if self.elements + result > MAX_TOTAL_ELEMENTS:
            raise BudgetError(f"more than {MAX_TOTAL_ELEMENTS:,} array elements built in all")
        self.work += work
        if self.work > MAX_WORK:
            raise BudgetError(f"more than {MAX_WORK:,} element operations in all (one call would do {work:,})")

    def step(self, work: int = 0, result: int = 0) -> None:
        """One evaluation step (an operation or a call) about to do ``work`` element operations and build
        ``result`` elements: counted and charged, and refused first past the step limit, the deadline or a
        limit of charge().  The deadline is looked at every step (one step may be a call that works on a
        million numbers) but read from the processor clock only once enough wall time has gone by for it
        to have passed: the time left, shared among every processor the threads could use."""
        self.tick(0)
        now = time.perf_counter()
        if now >= self.next_look:
            if self.deadline is None:
                used, read_at = recent_processor_time(now)
                self.deadline = used + MAX_SECONDS
            else:
                used, read_at = processor_time(), now
                if used > self.deadline:
                    raise BudgetError(f"the expressions take longer than {MAX_SECONDS:g} s in all")
            self.next_look = read_at + (self.deadline - used) / PROCESSORS
        self.charge(work, result)

    def tick(self, work: int) -> None:
        """A step of small, fixed work (an operation on two plain numbers), counted like step() without the
        clock: its time is bounded (whole numbers are bounded in size), so it cannot be the step that runs
        out of time, and the step limit bounds how many there are; the next step() looks at the clock and
        the next charge() at the few operations of work it adds."""
        self.steps += 1
        self.work += work
        if self.steps > self.max_steps:
            raise BudgetError(f"more than {self.max_steps:,} evaluation steps in all")

    def cost(self) -> int:
        """Steps and work as one number of element operations."""
        return self.steps * STEP_WORK + self.work


# The last processor time read, and the wall time (perf_counter) it was read at.
_last_reading: tuple[float, float] = (0.0, -math.inf)


def processor_time() -> float:
    """This process's processor time, now (a system call), remembered for recent_processor_time()."""
    global _last_reading
    used = clock()
    _last_reading = (used, time.perf_counter())
    return used


def recent_processor_time(now: float) -> tuple[float, float]:
    """A reading of processor time taken less than FRESH_SECONDS before wall time ``now``, and when it
    was taken: a budget starting within a burst of instances (validation, an export, a page of typed
    answers) takes its start from the reading of the one before instead of another system call.
    Processor time only grows, so the start is at most PROCESSORS × FRESH_SECONDS early, and the
    deadline that much earlier than MAX_SECONDS: never later."""
    used, read_at = _last_reading
    if now - read_at < FRESH_SECONDS:
        return used, read_at
    return processor_time(), now


_SHARED: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("quizzer_budget", default=None)


def current() -> Budget | None:
    """The budget of the instance or answer being computed, if any."""
    return _SHARED.get()


class shared_budget:  # lower case: used like a function, ``with shared_budget() as spent:``
    """Every evaluation inside the ``with`` block spends from one budget (a new one unless given),
    with one deadline: sixty derived values of three million elements each are refused as surely
    as one expression building them all.  (A class: a generator-based context manager would cost
    an instance more than many of its expressions.)"""

    __slots__ = ("budget", "token")

    def __init__(self, budget: Budget | None = None):
        self.budget = budget or Budget()

    def __enter__(self) -> Budget:
        self.token = _SHARED.set(self.budget)
        return self.budget

    def __exit__(self, *exc: object) -> None:
        _SHARED.reset(self.token)
