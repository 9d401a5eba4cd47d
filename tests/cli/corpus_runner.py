"""Run many ``quizzer`` commands as real child processes, cheaply: a fork server for the corpus tests.

Started as a script by ``tests/cli/test_hostile.py``: it imports quizzer once, then forks one child
per job, so each command runs in a process of its own (its exit status, its standard error, its
peak memory from ``os.wait4``'s rusage, a bank of its own) without paying the interpreter's start-up
and quizzer's imports each time (about a second of CPU per command here). Children run a few at a
time. A child that outlives the hang limit is killed and reported as hung.

Usage: ``corpus_runner.py PARALLEL HANG_SECONDS``.  Reads a JSON list of jobs
``{"args": [...], "dir": DIR}`` on standard input, where DIR holds the job's own copy of the bank
(``bank.sqlite``) and is its working directory (and, optionally, ``"hang_seconds"``: a job's own
hang limit); prints a JSON list of results.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from quizzer.cli import main


def run_child(job: dict[str, Any]) -> None:
    """In the forked child: run one command with its own bank, directory and output files, then exit."""
    directory = Path(job["dir"])
    os.chdir(directory)
    os.environ["QUIZZER_DB"] = str(directory / "bank.sqlite")
    for fd, name in ((1, "stdout"), (2, "stderr")):
        handle = os.open(directory / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(handle, fd)
        os.close(handle)
    try:
        main(list(job["args"]))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # what a user would see: the traceback, on standard error
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_jobs(jobs: list[dict[str, Any]], *, parallel: int, hang_seconds: float) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = [{} for _ in jobs]
    running: dict[int, tuple[int, float]] = {}  # pid -> (job index, start)
    waiting = list(range(len(jobs)))
    while waiting or running:
        while waiting and len(running) < parallel:
            index = waiting.pop(0)
            pid = os.fork()
            if pid == 0:
                try:
                    run_child(jobs[index])
                finally:
                    os._exit(70)  # never back into the parent's loop
            running[pid] = (index, time.perf_counter())
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        now = time.perf_counter()
        if pid == 0:
            for other, (index, started) in running.items():
                if now - started > jobs[index].get("hang_seconds", hang_seconds) and not results[index]:
                    os.kill(other, signal.SIGKILL)
                    results[index] = {"hung": True}
            time.sleep(0.002)
            continue
        index, started = running.pop(pid)
        directory = Path(jobs[index]["dir"])
        results[index] = {
            **results[index], "hung": results[index].get("hung", False),
            "status": os.waitstatus_to_exitcode(status),
            "seconds": now - started, "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "peak_bytes": usage.ru_maxrss * 1024,  # Linux reports kibibytes
            "stdout": (directory / "stdout").read_text(encoding="utf-8", errors="replace"),
            "stderr": (directory / "stderr").read_text(encoding="utf-8", errors="replace"),
        }
    return results


def prepare() -> None:
    """Import what ``validate`` and ``add`` use and read the course catalogue and the bundled keys,
    once, so that no child pays for them (about 0.1 s of CPU each); a forked child's resident set
    still includes all of it, so its peak memory is what a real ``quizzer add`` would reach."""
    # One BLAS thread: forking after a thread pool started is asking for trouble, and many children
    # share the cores anyway.  Set before NumPy is first imported, which reads it.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    import quizzer.bank.store  # noqa: F401
    import quizzer.learning.regrade  # noqa: F401
    from quizzer.templates.catalog import load_catalog
    from quizzer.templates.validate import bundled_files

    load_catalog()
    bundled_files()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
        main(["validate", "--seeds", "1", os.devnull])  # the first run's lazy imports, caches and parser
    gc.freeze()  # the collector would otherwise touch, and so copy, every inherited page in each child


if __name__ == "__main__":
    parallel, hang_seconds = int(sys.argv[1]), float(sys.argv[2])
    prepare()
    json.dump(run_jobs(json.load(sys.stdin), parallel=parallel, hang_seconds=hang_seconds), sys.stdout)
