"""Shared fixture: run a test once per engine backend."""

from __future__ import annotations

from types import ModuleType

import pytest

import engine


@pytest.fixture(params=engine.BACKENDS)
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module (engine.get_backend(name)) for each name in engine.BACKENDS."""
    return engine.get_backend(request.param)
