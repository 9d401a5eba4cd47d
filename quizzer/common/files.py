"""Writing output files safely: checked before any work, written completely or not at all.

Every command that writes a user's file (``export``, ``report``, ``progress export``) goes
through here, so each refuses the same way to overwrite without ``--force`` and no crash or
full disk ever leaves half a file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from quizzer.common.errors import UserError


def check_targets(targets: list[Path], *, force: bool) -> None:
    """Refuse, before anything is rendered, a target that cannot or must not be written."""
    for path in targets:
        if path.is_dir():
            raise UserError("is a directory; give a file name", where=str(path))
        if not path.parent.is_dir():
            raise UserError(f"cannot write: no directory {str(path.parent)!r}", where=str(path))
        if not os.access(path.parent, os.W_OK):
            raise UserError("cannot write: the directory is not writable", where=str(path))
        if path.exists() and not force:
            raise UserError("already exists; add --force to overwrite it", where=str(path))


def write_files(files: list[tuple[Path, bytes]]) -> None:
    """Write every file to a temporary sibling first (synced to disk); move them into place only
    when all are written, so a failure leaves every target as it was."""
    temporaries: list[tuple[str, Path]] = []
    current = files[0][0] if files else Path()  # the target being written, for the message
    try:
        for path, content in files:
            current = path
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
            temporaries.append((temporary, path))
            os.fchmod(descriptor, _new_file_mode())  # mkstemp's files are private (0600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())  # the rename must never publish a file whose data is not on disk
        for temporary, path in temporaries:
            current = path
            os.replace(temporary, path)
    except OSError as exc:
        raise UserError(f"cannot write: {exc.strerror or exc}", where=str(current)) from None
    finally:
        for temporary, _ in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)


def write_checked(path: Path, content: bytes, *, force: bool) -> None:
    """One file: checked, then written atomically."""
    check_targets([path], force=force)
    write_files([(path, content)])


def _new_file_mode() -> int:
    """The permissions a plain ``open(path, "w")`` would give a new file under this umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
