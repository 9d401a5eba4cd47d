"""The default --max-sessions: the machine's memory or its cores, whichever runs out first (README, "Capacity")."""

from __future__ import annotations

import os

import pytest

from quizzer.server import app

GIB = 2**30


@pytest.mark.parametrize(("cores", "memory_gib", "expected"), [
    (2, 24, 50),     # the development machine: the cores bind (memory alone would allow 153)
    (64, 24, 153),   # many cores: three quarters of 24 GiB at 120 MiB a session
    (16, 4, 25),     # little memory: 3 GiB at 120 MiB
    (1, 0.05, 1),    # never none
])
def test_default_is_the_smaller_of_memory_and_cores(monkeypatch: pytest.MonkeyPatch, cores: int,
                                                     memory_gib: float, expected: int) -> None:
    page = 4096
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)))
    monkeypatch.setattr(os, "sysconf", lambda name: {"SC_PAGE_SIZE": page,
                                                     "SC_PHYS_PAGES": int(memory_gib * GIB / page)}[name])
    assert app.default_max_sessions() == expected


def test_unknown_memory_falls_back_to_twenty(monkeypatch: pytest.MonkeyPatch) -> None:
    def unknown(_name: str) -> int:
        raise ValueError("no such configuration name")

    monkeypatch.setattr(os, "sysconf", unknown)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    assert app.default_max_sessions() == 20
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(8)))
    assert app.default_max_sessions() == 20
