"""The teacher's course secret and the paper codes it makes: exam papers that do not hand out their answers.

A practice paper prints its seed and the command that regenerates it, so a student can check their work with
``quizzer show``.  An exam paper must not: students have quizzer.  So an exam (``quizzer export --secret FILE``,
and every ``--versions N`` export) draws its numbers from the course secret, and a paper carries only its
**paper code**; the seeds, keys and regenerate command go into the teacher's key.

The secret
    32 random bytes, written once as 64 hexadecimal digits (one line) to the file the teacher names with
    ``--secret FILE`` (created on first use, readable by its owner only); without ``--secret``, ``--versions``
    uses ``course.secret`` beside the bank.  Keep it with the marking: whoever holds it can regenerate every
    exam paper's answers; without it a paper code cannot be turned back into numbers.

Paper code format (for whoever reads it back, such as a scanner's QR code)
    ``<VERSION>-<TAG>``, e.g. ``B-7KQ2M9XD``:

    * ``VERSION``: the version letters, ``A`` … ``Z``, ``AA``, ``AB``, … (one version: ``A``);
    * ``TAG``: 8 characters of Crockford's base 32 (``0-9`` and ``A-Z`` without ``I L O U``), the first 40
      bits of HMAC-SHA256(secret, ``"quizzer-paper\\0<exam seed>\\0<VERSION>"``) — it names the exam (the
      teacher's ``--seed``) and the version under this course's secret.

    The regular expression ``^[A-Z]{1,2}-[0-9A-HJKMNP-TV-Z]{8}$`` matches every code.  ``exam-key.csv``
    (written beside the papers) maps each code to its version, and each (code, question) to its template
    key, seed, answer and marks, which is everything needed to mark the paper with ``quizzer grade --batch``.

The seeds
    The question in position P (the teacher's order, before any ``--shuffle-questions``) of the paper with
    code C has the seed HMAC-SHA256(secret, ``"quizzer-question\\0<C>\\0<P>\\0<attempt>"``), its first 8 bytes
    as a number below 2**63: far too many to try one by one.  ``attempt`` is 0 unless a seed was passed over
    to keep the question's structure the same as version A's (``versions.hold_structure``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from quizzer.common.errors import UserError

SECRET_BYTES = 32
CODE = re.compile(r"^[A-Z]{1,2}-[0-9A-HJKMNP-TV-Z]{8}$")
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_MAX_FILE = 1024  # a secret file is one line; anything bigger is not one


def load_secret(path: Path) -> tuple[bytes, bool]:
    """The course secret in ``path``, creating it (owner-only) when the file does not exist; (secret, created)."""
    if not path.exists():
        secret = secrets.token_bytes(SECRET_BYTES)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="ascii") as file:
                file.write(secret.hex() + "\n")
        except OSError as exc:
            raise UserError(f"cannot create the course secret: {exc.strerror}", where=str(path)) from None
        return secret, True
    try:
        with path.open("rb") as file:
            data = file.read(_MAX_FILE + 1)
    except OSError as exc:
        raise UserError(f"cannot read the course secret: {exc.strerror}", where=str(path)) from None
    text = data.decode("ascii", errors="replace").strip()
    if len(data) > _MAX_FILE or not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise UserError("not a course secret (one line of 64 hexadecimal digits, as quizzer writes it)",
                        where=str(path))
    return bytes.fromhex(text), False


def default_secret_path(bank_url: str) -> Path:
    """``course.secret`` beside a SQLite bank; in the user data folder for a PostgreSQL one."""
    if bank_url.startswith("sqlite:///"):
        return Path(bank_url.removeprefix("sqlite:///")).with_name("course.secret")
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "course.secret"


def _mac(secret: bytes, *fields: object) -> bytes:
    return hmac.new(secret, "\x00".join(str(field) for field in fields).encode(), hashlib.sha256).digest()


def paper_code(secret: bytes, exam_seed: int, version: str) -> str:
    """``B-7KQ2M9XD``: the version and a tag only the secret makes (see the module's docstring)."""
    bits = int.from_bytes(_mac(secret, "quizzer-paper", exam_seed, version)[:5], "big")
    tag = "".join(_CROCKFORD[(bits >> shift) & 31] for shift in range(35, -1, -5))
    return f"{version}-{tag}"


def question_seed(secret: bytes, code: str, position: int, attempt: int = 0) -> int:
    """The seed of the question in ``position`` (1, 2, …, the teacher's order) on the paper ``code``."""
    return int.from_bytes(_mac(secret, "quizzer-question", code, position, attempt)[:8], "big") >> 1


def shuffled(secret: bytes, code: str, count: int) -> list[int]:
    """``--shuffle-questions``: the positions (0-based) in the order this paper prints them; a Fisher-Yates
    shuffle driven by the secret, so the same paper code always gets the same order."""
    order = list(range(count))
    for last in range(count - 1, 0, -1):
        pick = int.from_bytes(_mac(secret, "quizzer-order", code, last)[:8], "big") % (last + 1)
        order[last], order[pick] = order[pick], order[last]
    return order
