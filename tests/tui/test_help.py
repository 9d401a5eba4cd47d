"""The help screen lists every key the app binds: a key added to a screen or widget without a line in
the help fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

import quizzer.tui
from quizzer.tui.screens.help import HELP, HelpScreen

# How the help writes a key that Textual names otherwise.
SHOWN = {"slash": "/", "plus": "+", "minus": "-", "question_mark": "?", "left_square_bracket": "[",
         "right_square_bracket": "]", "left": "←", "right": "→", "up": "↑", "down": "↓"}


def shown(key: str) -> str:
    return "+".join(SHOWN.get(piece, piece) for piece in key.split("+"))


def bound_keys() -> dict[str, set[str]]:
    """Every key bound by a class of quizzer.tui, with the classes that bind it."""
    keys: dict[str, set[str]] = {}
    for module in pkgutil.walk_packages(quizzer.tui.__path__, "quizzer.tui."):
        for name, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if not issubclass(cls, DOMNode) or cls is HelpScreen or not cls.__module__.startswith("quizzer."):
                continue
            for binding in cls.__dict__.get("BINDINGS", ()):
                assert isinstance(binding, Binding)
                for key in binding.key.split(","):
                    keys.setdefault(key, set()).add(name)
    return keys


def test_every_screen_binds_keys_the_help_can_be_checked_against() -> None:
    owners = {owner for classes in bound_keys().values() for owner in classes}
    assert {"DashboardScreen", "PracticeScreen", "MockExamScreen", "BankBrowserScreen", "HistoryScreen",
            "QuizzerApp", "OrderBox", "PartsBox"} <= owners


@pytest.mark.parametrize("key", sorted(bound_keys()))
def test_the_help_lists_the_key(key: str) -> None:
    assert f"`{shown(key)}`" in HELP, f"{key} (bound by {', '.join(sorted(bound_keys()[key]))}) is not in the help"
