"""Learner profiles: whose attempts and review states these are.

The current profile is ``--profile NAME``, else ``QUIZZER_PROFILE``, else the OS user
name, so one person on one laptop never has to think about profiles, and a shared bank
(a lab machine, a class server) keeps every student's progress apart.  Every function
reads nothing but the environment: resolving a name costs no database import (the learner
rows themselves are kept by ``quizzer.bank.learners``).
"""

from __future__ import annotations

import getpass
import os
import re

from quizzer.common.errors import UserError
from quizzer.common.untrusted import quoted

PROFILE_ENV = "QUIZZER_PROFILE"
FALLBACK_NAME = "student"
MAX_NAME = 40
VALID_NAME = re.compile(rf"[\w .-]{{1,{MAX_NAME}}}")  # \w: letters, digits and _ in any script
NAME_RULE = f"1–{MAX_NAME} letters, digits, spaces, '.', '_' or '-'"


def valid_name(name: str, *, where: str) -> str:
    """``name`` without surrounding spaces, or a UserError saying what a profile name may be."""
    cleaned = name.strip()
    if not VALID_NAME.fullmatch(cleaned):
        raise UserError(f"invalid profile name {quoted(name, 40)}: use {NAME_RULE}", where=where)
    return cleaned


def os_profile_name() -> str:
    """The OS user name made into a valid profile name (``student`` when there is none)."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        return FALLBACK_NAME
    return re.sub(r"[^\w .-]", "_", user).strip()[:MAX_NAME].strip() or FALLBACK_NAME


def current_profile_name(option: str | None = None) -> str:
    """``--profile`` if given, else ``QUIZZER_PROFILE``, else the OS user name; validated."""
    if option is not None:
        return valid_name(option, where="--profile")
    if os.environ.get(PROFILE_ENV):
        return valid_name(os.environ[PROFILE_ENV], where=PROFILE_ENV)
    return os_profile_name()
