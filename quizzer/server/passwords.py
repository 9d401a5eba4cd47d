"""Passwords for ``quizzer serve``: made, stored as a slow key-derivation record, checked.

**Why passwords, not personal links.**  A personal sign-in link is a bearer secret in a URL: it
stays in the browser's history and address-bar suggestions (on a lab machine, for the next student),
in chat messages it is forwarded by, and in proxy logs.  A password is typed, stored by nobody but
its owner (or their password manager), and a teacher can hand out a roster's worth on paper.  The
teacher makes them (``quizzer accounts add`` / ``import``), so none is a reused personal password,
and a new one (``quizzer accounts reset``) takes a leaked one back and signs its owner out everywhere.

**Why scrypt from the standard library.**  ``hashlib.scrypt`` is OpenSSL's scrypt, a standard slow,
memory-hard key derivation (RFC 7914) with no new dependency.  The cost is one of OWASP's
recommended scrypt settings (N=2^14, r=8, p=5: 16 MiB and about 0.1 s of one core per check),
light enough on memory that a class signing in at once does not crowd out its app processes.  The
record names its parameters (``scrypt$N$r$p$salt$key``), so a later cost applies to new passwords
while the old ones still check.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

N, R, P = 2**14, 8, 5
MAX_N = 2**17  # the most a stored record may ask for (128 MiB at r=8): a damaged one cannot exhaust memory
KEY_BYTES = 32
MAX_PASSWORD = 200  # characters: a longer "password" is refused before any work is done
# No 0/o, 1/l/i: a password read off paper is typed right the first time.
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_password() -> str:
    """Twelve random letters and digits in three groups (59 bits), e.g. ``k7dm-x2qe-9rwa``."""
    letters = "".join(secrets.choice(ALPHABET) for _ in range(12))
    return "-".join(letters[i:i + 4] for i in range(0, 12, 4))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    key = _derive(password, salt, N, R, P)
    return "$".join(["scrypt", str(N), str(R), str(P), _b64(salt), _b64(key)])


def check_password(password: str, record: str | None) -> bool:
    """Whether ``password`` is the one ``record`` was made from.  With no record (no such learner)
    the same work is done against a throwaway one, so a wrong name takes as long as a wrong password."""
    if len(password) > MAX_PASSWORD:
        return False
    try:
        scheme, n, r, p, salt, key = (record or _decoy()).split("$")
        cost = int(n), int(r), int(p)
        if scheme != "scrypt" or not (cost[0] <= MAX_N and cost[1] <= 32 and cost[2] <= 16):
            return False  # not a record this module made: no work on its say-so
        matches = hmac.compare_digest(_derive(password, _unb64(salt), *cost), _unb64(key))
    except ValueError:  # a damaged record (binascii.Error is one): no password matches it
        return False
    return matches and record is not None


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * n * r, dklen=KEY_BYTES)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _unb64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


@functools.cache
def _decoy() -> str:
    return hash_password(secrets.token_urlsafe())
