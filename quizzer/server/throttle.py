"""Failed sign-ins, throttled: per learner name and per client address.

A name gets ``FREE_FAILURES`` wrong passwords within ``WINDOW``; after that each further attempt
must wait, and the wait doubles with every failure (30 s, 1 min, 2 min, … up to ``WINDOW``), so
guessing one learner's password is hopeless while the learner who mistyped twice never notices.
An address gets more (``FREE_FAILURES_PER_ADDRESS``: a computer lab behind one NAT address signs
a whole class in) before the same rule applies, which slows one machine trying many names.
A success clears the name's failures, not the address's.

The counts live in the server's memory: a restart forgets them, and N servers behind one proxy
allow N times as many (the proxy's sticky sessions usually send one client to one server).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

WINDOW = 15 * 60.0  # seconds over which failures are counted
FREE_FAILURES = 5
FREE_FAILURES_PER_ADDRESS = 50
FIRST_WAIT = 30.0


@dataclass
class _Failures:
    times: list[float] = field(default_factory=list)


class Throttle:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._failures: dict[tuple[str, str], _Failures] = {}

    def wait(self, *, name: str, address: str) -> float:
        """Seconds before a sign-in as ``name`` from ``address`` may be tried (0: now)."""
        return max(self._wait(("name", name), FREE_FAILURES),
                   self._wait(("address", address), FREE_FAILURES_PER_ADDRESS))

    def failed(self, *, name: str, address: str) -> None:
        now = self.clock()
        for key in (("name", name), ("address", address)):
            self._failures.setdefault(key, _Failures()).times.append(now)
        self._forget_old(now)

    def succeeded(self, *, name: str) -> None:
        self._failures.pop(("name", name), None)

    def _wait(self, key: tuple[str, str], free: int) -> float:
        failures = self._failures.get(key)
        if failures is None:
            return 0.0
        now = self.clock()
        recent = [t for t in failures.times if now - t < WINDOW]
        failures.times = recent
        if len(recent) < free:
            return 0.0
        wait = min(FIRST_WAIT * 2.0 ** (len(recent) - free), WINDOW)
        return max(0.0, recent[-1] + wait - now)

    def _forget_old(self, now: float) -> None:
        """Bounded memory: a key whose last failure is out of the window is dropped."""
        if len(self._failures) > 10_000:
            self._failures = {key: f for key, f in self._failures.items() if f.times and now - f.times[-1] < WINDOW}
