"""The record of one mutation, in a module of its own so the slip modules need not import the package."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mutation:
    """One slip: the misconception it reproduces and the engine functions it replaces."""

    id: str                                         # a misconception id of data/misconceptions.yaml
    slip: str                                       # what is done wrong, in a line
    replaces: Mapping[str, Callable[..., Any]]      # public engine function name → same-signature slip
