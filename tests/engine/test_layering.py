"""engine/ is the bottom layer: it never imports the application, and NumPy use never imports torch."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).parent
FORBIDDEN = {"quizzer", "textual", "sqlmodel"}


def imported_top_level_names(path: Path) -> set[str]:
    """First component of every module that `path` imports (absolute imports only)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_never_imports_the_application_or_its_ui_and_storage() -> None:
    sources = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(sources) >= 5
    for path in sources:
        assert not imported_top_level_names(path) & FORBIDDEN, path


def test_torch_is_imported_only_by_the_torch_backend() -> None:
    for path in ENGINE_DIR.rglob("*.py"):
        if path.name != "torch_backend.py":
            assert "torch" not in imported_top_level_names(path), path


NUMPY_ONLY_SESSION = """
import sys
import numpy as np
import engine
x = np.ones((2, 3, 4), dtype=np.float32)
engine.softmax(x, mask=engine.causal_mask(4)[:3])
engine.scaled_dot_product_attention(x, x, x)
engine.encoder_layer_params(512, 2048)
engine.sinusoidal_encoding(10, 16)
engine.attention_shapes(2, 3, 16, 4)
engine.get_backend("numpy").warmup_lr(4000, 512)
with engine.use_backend("numpy"):
    engine.layer_norm(x)
print("torch" in sys.modules)
"""


def test_numpy_use_leaves_torch_unimported() -> None:
    result = subprocess.run(
        [sys.executable, "-c", NUMPY_ONLY_SESSION], capture_output=True, text=True, check=True, env={"PATH": ""},
        cwd=ENGINE_DIR.parent,
    )
    assert result.stdout.strip() == "False"
