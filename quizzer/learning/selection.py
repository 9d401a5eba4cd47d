"""Choosing which questions to generate: deterministic for a given selection and seed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quizzer.common.errors import UserError
from quizzer.templates.draw import stream
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.schema import Template

if TYPE_CHECKING:
    from sqlmodel import Session


def choose_instances(*, session: Session, keys: Sequence[str] = (), topic: str | None = None,
                     week: int | None = None, paper: str | None = None, n: int | None = None,
                     seed: int) -> list[Instance]:
    """The templates the filters select from the bank, instantiated by :func:`instances_of`."""
    # The ORM only here: ``generate -k KEY`` alone reads its templates through bank.readonly.
    from quizzer.bank.readonly import parse_stored
    from quizzer.bank.store import find_question, select_templates

    # An unknown key is named, with a suggestion; a part's routed ID selects the question it is part of.
    keys = [find_question(session=session, key=key)[0].key for key in keys]
    rows = select_templates(session=session, keys=keys, topic=topic, week=week, paper=paper)
    if not rows:
        raise UserError("no questions match this selection; see 'quizzer list'")
    if keys:  # the teacher's order, as given with -k (the bank returns them by week and key)
        rows.sort(key=lambda row: keys.index(row.key))
    return instances_of([parse_stored(row.source_yaml, row.content_hash, row.key) for row in rows], n=n, seed=seed)


def instances_of(templates: Sequence[Template], *, n: int | None = None, seed: int) -> list[Instance]:
    """``templates`` (a seeded sample of ``n`` when given), each instantiated with ``seed``.

    Every template of a selection uses the same instance seed, so ``quizzer grade KEY --seed S``
    grades exactly what ``generate --seed S`` printed.  When ``n`` exceeds the selection, the
    templates repeat with seeds S+1, S+2, … so no two instances coincide.
    """
    chosen = list(templates)
    if n is not None:
        order = stream("selection", seed, "|".join(t.key for t in chosen)).permutation(len(chosen))
        chosen = [chosen[int(i)] for i in order]
    count = n or len(chosen)
    return [make_instance(chosen[i % len(chosen)], seed + i // len(chosen)) for i in range(count)]
