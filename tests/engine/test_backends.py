"""Backend selection: per process, per block (context-local) and per call; the public API is
complete and identical in both backends."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import numpy as np
import pytest

import engine

ROOT = os.path.dirname(os.path.dirname(engine.__file__))


@pytest.fixture(autouse=True)
def restore_process_backend() -> Iterator[None]:
    """Tests here switch the process default; put it back afterwards."""
    before = engine.current_backend()
    yield
    engine.set_backend(before)


def test_public_api_is_exported_and_identical_in_both_backends() -> None:
    assert engine.BACKENDS == ("numpy", "torch")
    assert len(engine.PUBLIC_API) == 30
    for name in engine.PUBLIC_API:
        reference = getattr(engine.get_backend("numpy"), name)
        assert inspect.signature(getattr(engine, name)) == inspect.signature(reference), name
        assert inspect.signature(getattr(engine.get_backend("torch"), name)) == inspect.signature(reference), name
        assert reference.__doc__, name


def test_set_backend_routes_top_level_calls() -> None:
    engine.set_backend("torch")
    assert engine.current_backend() == "torch"
    assert engine.encoder_layer_params(512, 2048) == 3_152_384
    assert "torch" in sys.modules
    engine.set_backend("numpy")
    assert engine.current_backend() == "numpy"


def test_use_backend_is_scoped_and_thread_local() -> None:
    seen: dict[str, str] = {}
    inside = threading.Event()
    release = threading.Event()

    def other_thread() -> None:
        inside.wait()
        seen["other"] = engine.current_backend()
        release.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with engine.use_backend("torch") as backend:
        assert backend is engine.get_backend("torch")
        seen["block"] = engine.current_backend()
        inside.set()
        release.wait()
        np.testing.assert_allclose(engine.softmax([0.0, 0.0]), [0.5, 0.5])
    thread.join()
    assert seen == {"block": "torch", "other": "numpy"}
    assert engine.current_backend() == "numpy"


def test_get_backend_is_a_per_call_choice() -> None:
    out = engine.get_backend("torch").softmax(np.zeros(3))
    assert isinstance(out, np.ndarray)
    assert engine.current_backend() == "numpy"


def test_unknown_backend_lists_the_choices() -> None:
    choices = r"unknown engine backend 'jax'.*\('numpy', 'torch'\)"
    with pytest.raises(ValueError, match=choices):
        engine.set_backend("jax")
    with pytest.raises(ValueError, match=choices):
        engine.get_backend("jax")
    with pytest.raises(ValueError, match=choices), engine.use_backend("jax"):
        pass


def import_engine_with(value: str) -> subprocess.CompletedProcess[str]:
    """`import engine` in a fresh interpreter with QUIZZER_ENGINE_BACKEND=value; prints the backend."""
    env = {**os.environ, "QUIZZER_ENGINE_BACKEND": value}
    code = "import engine; print(engine.current_backend())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)


def test_environment_variable_sets_the_process_default() -> None:
    assert import_engine_with("torch").stdout.strip() == "torch"
    failed = import_engine_with("jax")
    assert failed.returncode != 0 and "unknown engine backend 'jax'" in failed.stderr
