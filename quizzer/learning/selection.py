"""Choosing which questions to generate: deterministic for a given selection and seed."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from quizzer.bank.store import find_question, get_template, select_templates
from quizzer.common.errors import UserError
from quizzer.templates.instance import Instance, make_instance, stream


def choose_instances(*, session: Session, keys: Sequence[str] = (), topic: str | None = None,
                     week: int | None = None, paper: str | None = None, n: int | None = None,
                     seed: int) -> list[Instance]:
    """The selected templates (a seeded sample of ``n`` when given), each instantiated with ``seed``.

    Every template of a selection uses the same instance seed, so ``quizzer grade KEY --seed S``
    grades exactly what ``generate --seed S`` printed.  When ``n`` exceeds the selection, the
    templates repeat with seeds S+1, S+2, … so no two instances coincide.
    """
    # An unknown key is named, with a suggestion; a part's routed ID selects the question it is part of.
    keys = [find_question(session=session, key=key)[0].key for key in keys]
    rows = select_templates(session=session, keys=keys, topic=topic, week=week, paper=paper)
    if not rows:
        raise UserError("no questions match this selection; see 'quizzer list'")
    chosen = [row.key for row in rows]
    if n is not None:
        order = stream("selection", seed, "|".join(chosen)).permutation(len(chosen))
        chosen = [chosen[int(i)] for i in order]
    count = n or len(chosen)
    picks = [(chosen[i % len(chosen)], seed + i // len(chosen)) for i in range(count)]
    return [make_instance(get_template(session=session, key=key), instance_seed) for key, instance_seed in picks]
