"""Writing output files safely: checked before any work, written completely or not at all.

Every command that writes a user's file (``export``, ``report``, ``progress export``) goes
through here, so each refuses the same way to overwrite without ``--force`` and no crash or
full disk ever leaves half a file behind.

A writer killed outright (SIGKILL, power loss) cannot remove its hidden ``.NAME.*.part`` temporary
file, so each writer holds an exclusive ``flock`` on its own while it lives (the kernel drops the
lock when the process dies, whatever the cause) and the next write to the same target removes
every such file whose lock it can take.  A lock, not a process id: ids are reused.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
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
    temporaries: list[tuple[int, str, Path]] = []
    current = files[0][0] if files else Path()  # the target being written, for the message
    try:
        for path, content in files:
            current = path
            _remove_leftovers(path)
            descriptor, temporary = _locked_temporary(path)
            temporaries.append((descriptor, temporary, path))
            os.fchmod(descriptor, _new_file_mode())  # mkstemp's files are private (0600)
            # Kept open (so locked) until it is in place: closing would drop the lock.
            with os.fdopen(os.dup(descriptor), "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())  # the rename must never publish a file whose data is not on disk
        for _, temporary, path in temporaries:
            current = path
            os.replace(temporary, path)
    except OSError as exc:
        raise UserError(f"cannot write: {exc.strerror or exc}", where=str(current)) from None
    finally:
        for descriptor, temporary, _ in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)
            os.close(descriptor)


def write_checked(path: Path, content: bytes, *, force: bool) -> None:
    """One file: checked, then written atomically."""
    check_targets([path], force=force)
    write_files([(path, content)])


def _locked_temporary(path: Path) -> tuple[int, str]:
    """A new hidden sibling of ``path``, open and flock-ed, for this process only.  Between creating it
    and locking it, another writer's clean-up may take it for a dead writer's: then make another."""
    while True:
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            if os.path.samestat(os.fstat(descriptor), os.stat(temporary)):
                return descriptor, temporary
        except FileNotFoundError:
            pass
        os.close(descriptor)


def _remove_leftovers(path: Path) -> None:
    """Remove the temporaries of writers of ``path`` that died before they could (none holds its lock)."""
    for leftover in glob.glob(os.path.join(glob.escape(str(path.parent)), f".{glob.escape(path.name)}.*.part")):
        try:
            descriptor = os.open(leftover, os.O_RDONLY)
        except OSError:
            continue  # gone already, or not ours to read
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live writer's
        else:
            with contextlib.suppress(OSError):  # another writer removed it first
                os.unlink(leftover)
        finally:
            os.close(descriptor)


def _new_file_mode() -> int:
    """The permissions a plain ``open(path, "w")`` would give a new file under this umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
