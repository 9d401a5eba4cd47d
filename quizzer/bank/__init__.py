"""The bank: the SQLite or PostgreSQL database of templates, learners, attempts and review cards.

Owns: ``models`` (every table, one file), ``db`` (engines, sessions, write locks, errors),
``migrations`` (versioned upgrades with backups), ``store`` (templates and attempts: functions
that take a session), ``learners``, ``ready`` (open a bank and import the bundled questions once).
May import: ``quizzer.templates``, ``grading``, ``common``, SQLModel/SQLAlchemy. Never learning,
reporting or a face.
"""
