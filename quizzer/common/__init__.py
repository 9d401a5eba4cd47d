"""Small things every layer shares: the one user-facing error, the clock, atomic file writing, profile names.

Owns: ``errors`` (``UserError``: one line, exit status 2), ``clock`` (aware UTC time), ``files``
(checked, fsynced, atomic writes of a user's files), ``profiles`` (which learner is speaking,
from flags and the environment alone).
May import: the standard library only (and each other).
"""
