"""The bank: the SQLite or PostgreSQL database of templates, learners, attempts and review cards.

Owns: ``models`` (every table, one file), ``db`` (engines, sessions, write locks, errors),
``migrations`` (versioned upgrades with backups), ``store`` (templates and attempts: functions
that take a session), ``learners``, ``accounts`` (sign-ins for
``quizzer serve``), ``ready`` (open a bank and import the bundled questions once),
``location`` (where the bank is), ``readonly`` (the one-question commands' read path: a current
SQLite bank read with the standard library, no ORM).
May import: ``quizzer.templates``, ``grading``, ``common``, SQLModel/SQLAlchemy. Never learning,
reporting or a face.
"""

# The facts every opening of a bank checks, here rather than in ``models``/``migrations`` so that the
# light read path (``readonly``) can check them without importing the ORM.
SCHEMA_VERSION = 6
VERSION_KEY = "schema_version"        # Meta row: the schema version (see ``migrations``)
CATALOG_DIGEST_KEY = "catalog_digest"  # Meta row: the catalog_digest() the topics and records were synced from
RULES_KEY = "grading_rules"           # Meta row: the scoring rules the attempts were graded under (regrade)
PART_IDS_KEY = "part_ids"             # Meta row: the routed IDs parts carry, read once at import (readonly)
QUESTIONS_KEY = "bundled_questions"   # Meta row: the bundled files as last imported, by stat (readonly)
