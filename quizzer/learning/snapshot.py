"""The dashboard as the app last showed it, kept beside a SQLite bank so the next start shows it at once.

Opening the bank the ordinary way (SQLAlchemy, NumPy, the catalogue, every question parsed, the history
replayed) takes about a second; the dashboard it computes is saved here, with the bank's
``glance.fingerprint`` for that learner.  At the next start the app reads it with the standard library
while the bank opens in a worker, and shows it only if the fingerprint still matches: any answer,
review, import, regrade, change of rules or of the learner's exam date since makes it stale, and the app
shows "Loading…" as before.  The reviews due are recounted at the glance (they change with time alone).
The plan changes with the day (days left, the day's budget), so the snapshot keeps the plan as it was
shown and the plan of each of the next :data:`DAYS_AHEAD` days as that day begins (nothing practised
meanwhile, or the fingerprint would have changed); on a day it holds no plan for, it is stale.  The
worker's dashboard replaces it as soon as it is ready, so nothing else in the app ever reads a snapshot.

One JSON file per bank (``bank.sqlite.dashboard.json``), one entry per profile; bounded in size, and a
file that is damaged, too large or of another version is ignored (and rewritten at the next save).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from quizzer.bank.glance import Glance, glance, sqlite_file
from quizzer.learning.dashboard_rows import Dashboard, PaperRow, PlanRow, TopicRow, due_by_topic

VERSION = 2  # 2: the plan
DAYS_AHEAD = 7  # a learner who opens the app at least once a week always starts on a snapshot
MAX_BYTES = 2_000_000  # a class's bank has some 300 questions and 20 topics: about 40 kB per profile


def snapshot_file(bank: Path) -> Path:
    return bank.with_name(bank.name + ".dashboard.json")


def _read(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == VERSION else {}


def bank_now(url: str | None, profile: str, now: datetime) -> Glance | None:
    """The glance a snapshot of ``profile``'s dashboard computed now is kept with; None when the bank is not a
    SQLite file (no snapshot is kept)."""
    return glance(url, profile, now) if sqlite_file(url) is not None else None


def save(url: str | None, profile: str, dashboard: Dashboard, primary: dict[str, str],
         ahead: Sequence[PlanRow] = (), *, seen: Glance | None) -> None:
    """Keep ``dashboard`` (computed from the bank at ``url``) for ``profile``'s next start.
    ``primary``: each question's primary topic, to recount the reviews due then; ``ahead``: the plan of each
    coming day as it begins; ``seen``: the bank's :func:`bank_now` read *before* the dashboard was computed
    (an answer another process records meanwhile must leave the snapshot stale, not be vouched for by a
    fingerprint that includes it).  Quietly nothing when the bank is not a SQLite file or the file cannot
    be written: the next start is merely slower."""
    from quizzer.common.errors import UserError
    from quizzer.common.files import write_files  # (tempfile, fcntl: not needed to read a snapshot)

    bank = sqlite_file(url)
    if bank is None or seen is None:
        return
    path = snapshot_file(bank)
    data = _read(path) or {"version": VERSION, "profiles": {}}
    data["profiles"][profile] = {"fingerprint": seen.fingerprint, "primary": primary, "dashboard": asdict(dashboard),
                                 "ahead": [asdict(row) for row in ahead]}
    try:
        write_files([(path, json.dumps(data, separators=(",", ":")).encode())])
    except UserError:
        return  # e.g. a read-only directory


def load(url: str | None, profile: str, now: datetime) -> Dashboard | None:
    """``profile``'s saved dashboard with the reviews due and the plan of ``now``'s day (in this machine's time
    zone, as ``Study`` counts days), if the bank has not changed since."""
    bank = sqlite_file(url)
    if bank is None:
        return None
    entry = _read(snapshot_file(bank)).get("profiles", {}).get(profile)
    seen = glance(url, profile, now) if isinstance(entry, dict) else None
    if seen is None or entry is None or entry.get("fingerprint") != seen.fingerprint:
        return None
    try:
        plans = [_plan(row) for row in [entry["dashboard"]["plan"], *entry["ahead"]] if row is not None]
        today = now.astimezone().date().isoformat()
        plan = next((row for row in plans if row.day == today), None)
        return _rebuilt(entry["dashboard"], entry["primary"], seen.due, plan) if plan is not None else None
    except (KeyError, TypeError, ValueError):
        return None


def _plan(saved: dict[str, Any]) -> PlanRow:
    return PlanRow(**{**saved, "topics": tuple((str(name), int(n)) for name, n in saved["topics"])})


def _rebuilt(saved: dict[str, Any], primary: dict[str, str], due_keys: frozenset[str], plan: PlanRow) -> Dashboard:
    due = due_by_topic(due_keys, primary)
    topics = [replace(TopicRow(**{**row, "misconceptions": tuple(map(tuple, row["misconceptions"]))}),
                      due=due[row["id"]]) for row in saved["topics"]]
    papers = [PaperRow(**{**row, "topics": tuple(row["topics"])}) for row in saved["papers"]]
    return Dashboard(topics, papers, int(saved["attempts"]), len(due_keys), dict(saved["titles"]), plan)
