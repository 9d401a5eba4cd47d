"""`make bench-serve`: how many students one `quizzer serve` holds, measured as they meet it.

One server in sign-in mode on a throwaway bank whose only question is a multiple-choice one; for
each class size N (``--sessions 10 50 100``) N learners sign in, each opens the app over a real
websocket (textual-serve's protocol, as the page's script speaks it, at 120×40), waits for the
dashboard, starts practising, and answers ``--answers`` questions: a letter, then enter, timing
from the enter to the verdict on its screen ("next question", or a wrong answer's "try again", when
enter brings the solution), then ``n`` for the next one.
``--browsers`` of the N are real Chromium pages (Playwright, Debian's chromium), timed the same way
from the key press to the verdict in the frames the page received.

Reported per N: the resident memory of the app processes (RSS, and PSS, which shares the pages
they have in common fairly: the memory the machine really spends per session), sessions per GiB
of PSS, the p95 of the time from a learner's arrival to their dashboard, and the p50/p95/max of
enter→verdict.  The learners arrive evenly over ``--arrival`` seconds (60: a class coming in; all
in one instant, on a busy 2-core machine, 50 app processes starting at once did not all reach
their dashboard within 400 s), and every one stays open until all have answered, so the memory is
that of N sessions at once.  Then learner N+1 comes (the server runs with ``--max-sessions N``):
the row says what they got (503 "the server is full", or their app).  Between sizes the server is
restarted so each N starts from cold; a size is abandoned, and no larger one tried, if the
machine's available memory falls under ``MEMORY_FLOOR_MIB`` (the bench must not make it swap).  The
learners share the machine's cores with the server and the app processes, so on a small machine the
latency is the CPU's as much as quizzer's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]

QUESTION = REPO / "questions/week1/scaled_dot_product_attention/practice-w1b-sdpa-longer-sequence.yaml"
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
PASSWORD = "bench-password"
TIMEOUT = float(os.environ.get("BENCH_SERVE_TIMEOUT", 600))
MEMORY_FLOOR_MIB = 2048


class OutOfMemory(Exception):
    """The machine's available memory fell under MEMORY_FLOOR_MIB during a size."""


class Learner:
    """One websocket client: what its screen has received, and the time it waited for each verdict."""

    def __init__(self, http: Any, base: str, name: str) -> None:
        self.http, self.base, self.name, self.text, self.waits = http, base, name, "", []  # type: list[float]
        self.closed = ""  # why the session ended early, if it did
        self.seen = 0  # how much of ``text`` an earlier wait has consumed
        self.finished = False

    async def run(self, answers: int, dashboards: list[float], started: float, delay: float,
                  release: asyncio.Event) -> None:
        await asyncio.sleep(delay)  # a class arrives over a minute, not in one instant
        async with self.http.post(self.base + "/signin", data={"name": self.name, "password": PASSWORD},
                                  allow_redirects=False) as response:
            assert response.status == 303, f"{self.name} could not sign in ({response.status})"
        async with self.http.ws_connect(self.base.replace("http", "ws", 1) + "/ws?width=120&height=40") as socket:
            reader = asyncio.create_task(self.read(socket))
            await self.wait_for(" reviews due")
            dashboards.append(time.perf_counter() - started - delay)
            await self.press_until(socket, "\r", "enter submits")
            for answer in range(answers):
                while True:  # a letter read before the options were on screen is dropped (the app's key gate)
                    await socket.send_str(json.dumps(["stdin", "a"]))
                    await asyncio.sleep(0.3)  # a student reads their choice before submitting it
                    sent = time.perf_counter()
                    await socket.send_str(json.dumps(["stdin", "\r"]))
                    seen = await self.wait_for("next question", "try again", "nothing picked")
                    if seen != "nothing picked":
                        break
                self.waits.append(time.perf_counter() - sent)
                if seen == "try again":  # a wrong answer: the offer of a second try; enter shows the solution
                    await self.press_until(socket, "\r", "next question")
                if answer + 1 < answers:
                    await self.press_until(socket, "n", "enter submits")
            self.finished = True
            await release.wait()  # open until everyone has answered: N sessions at once
            reader.cancel()

    async def press_until(self, socket: Any, key: str, marker: str) -> None:
        """Press ``key`` until the screen shows ``marker``: a key read before the screen that takes it
        was drawn is dropped by the app's key gate (a busy machine makes that likely), so press again."""
        while True:
            await socket.send_str(json.dumps(["stdin", key]))
            try:
                await self.wait_for(marker, timeout=5.0)
                return
            except TimeoutError:
                continue

    async def read(self, socket: Any) -> None:
        async for message in socket:
            if isinstance(message.data, bytes):
                self.text += ESCAPES.sub("", message.data.decode("utf-8", "replace"))
        self.closed = f"the server closed {self.name}'s websocket (code {socket.close_code})"

    async def wait_for(self, *markers: str, timeout: float = TIMEOUT) -> str:
        """The first of ``markers`` the screen shows after what an earlier wait consumed."""
        deadline = time.monotonic() + timeout
        while True:
            found = [(self.text.index(m, self.seen), m) for m in markers if m in self.text[self.seen:]]
            if found:
                at, marker = min(found)
                self.seen = at + len(marker)
                return marker
            if self.closed:
                raise ConnectionError(f"{self.closed}; the screen ends: {self.text[-300:]!r}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} never saw {markers!r}; the screen ends: {self.text[-1500:]!r}")
            await asyncio.sleep(0.02)


def memory_of(pids: list[int]) -> tuple[float, float]:
    """Total RSS and PSS, in MiB, of these processes (from /proc/PID/smaps_rollup)."""
    rss = pss = 0.0
    for pid in pids:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in rollup.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1]) / 1024
            elif line.startswith("Pss:"):
                pss += int(line.split()[1]) / 1024
    return rss, pss


def app_processes(server: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == server:
                found.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return found


def available_mib() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return math.inf


def browser_learner(base: str, name: str, answers: int, finished: threading.Event,
                    release: threading.Event) -> list[float]:
    """One Chromium page: sign in through the form, then answer as a student does, timed key → verdict."""
    from playwright.sync_api import sync_playwright

    waits: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        # A loaded server can take longer than Playwright's 30 s to send a page (at 50 sessions on a shared
        # 2-core machine it did): wait as long as the websocket learners do.
        page.set_default_timeout(TIMEOUT * 1000)
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(
            ESCAPES.sub("", frame if isinstance(frame, str) else frame.decode("utf-8", "replace")))))
        page.goto(base + "/signin")
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.keyboard.press("Enter")
        seen = 0

        def wait_for(*markers: str, timeout: float = TIMEOUT) -> str | None:
            nonlocal seen
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                text = "".join(frames)
                found = [(text.index(m, seen), m) for m in markers if m in text[seen:]]
                if found:
                    at, marker = min(found)
                    seen = at + len(marker)
                    return marker
                page.wait_for_timeout(10)
            return None

        def press_until(key: str, marker: str) -> None:  # as Learner.press_until
            while True:
                page.keyboard.press(key)
                if wait_for(marker, timeout=5.0):
                    return

        assert wait_for(" reviews due"), "never saw the dashboard"
        press_until("Enter", "enter submits")
        for answer in range(answers):
            while True:
                page.keyboard.press("a")
                page.wait_for_timeout(300)
                sent = time.perf_counter()
                page.keyboard.press("Enter")
                seen_now = wait_for("next question", "try again", "nothing picked")
                assert seen_now, f"no verdict: {''.join(frames)[-1500:]!r}"
                if seen_now != "nothing picked":
                    break
            waits.append(time.perf_counter() - sent)
            if seen_now == "try again":  # as Learner.run
                press_until("Enter", "next question")
            if answer + 1 < answers:
                press_until("n", "enter submits")
        finished.set()
        release.wait()  # as Learner.run: open until everyone has answered
        browser.close()
    return waits


async def one_more(base: str, name: str) -> str:
    """What learner N+1 meets at a server holding N sessions: the page, then the websocket."""
    import aiohttp

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(base + "/signin", data={"name": name, "password": PASSWORD},
                             allow_redirects=False) as response:
            assert response.status == 303, f"{name} could not sign in ({response.status})"
        async with http.get(base + "/") as response:
            page = f"{response.status} full" if "The server is full" in await response.text() else str(response.status)
        try:
            async with http.ws_connect(base.replace("http", "ws", 1) + "/ws?width=120&height=40"):
                return f"{page}, websocket opened"
        except aiohttp.WSServerHandshakeError as refused:
            return f"page {page}, websocket {refused.status}"


async def one_size(base: str, server: int, sessions: int, browsers: int, answers: int,
                   arrival: float) -> dict[str, Any]:
    import aiohttp

    started = time.perf_counter()
    dashboards: list[float] = []
    clients = [aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) for _ in range(sessions - browsers)]
    learners = [Learner(http, base, f"learner{i}") for i, http in enumerate(clients)]
    release, browsers_release = asyncio.Event(), threading.Event()
    finished = [threading.Event() for _ in range(browsers)]
    tasks = [asyncio.create_task(learner.run(answers, dashboards, started, arrival * i / sessions, release))
             for i, learner in enumerate(learners)]
    pages = [asyncio.create_task(asyncio.to_thread(browser_learner, base, f"learner{sessions - 1 - i}", answers,
                                                   finished[i], browsers_release)) for i in range(browsers)]
    peak_rss = peak_pss = 0.0
    beyond = ""
    try:
        while not all(task.done() for task in tasks + pages):
            await asyncio.sleep(1.0)
            rss, pss = memory_of(app_processes(server))
            if pss > peak_pss:
                peak_rss, peak_pss = rss, pss
            if available_mib() < MEMORY_FLOOR_MIB:
                raise OutOfMemory(f"{available_mib():.0f} MiB available at {len(app_processes(server))} sessions")
            failed = [task for task in tasks + pages if task.done() and task.exception() is not None]
            if failed:
                failed[0].result()
            if not beyond and all(learner.finished for learner in learners) and all(e.is_set() for e in finished):
                beyond = await one_more(base, f"learner{sessions}")  # N sessions open: one more arrives
                release.set()
                browsers_release.set()
        for task in tasks + pages:
            task.result()  # a learner that failed fails the run
    finally:
        release.set()
        browsers_release.set()
        for task in tasks:  # a failed size: the other learners stop here, their connections closed
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for http in clients:
            await http.close()
    waits = sorted(w for learner in learners for w in learner.waits)
    browser_waits = sorted(w for page in pages for w in page.result())
    every = sorted(waits + browser_waits)
    return {"sessions": sessions, "browsers": browsers, "rss_mib_per_session": peak_rss / sessions,
            "pss_mib_per_session": peak_pss / sessions, "sessions_per_gib": 1024 / (peak_pss / sessions),
            "dashboard_p95_s": sorted(dashboards)[math.ceil(0.95 * len(dashboards)) - 1] if dashboards else None,
            "p50_ms": 1000 * statistics.median(every),
            "p95_ms": 1000 * every[math.ceil(0.95 * len(every)) - 1],  # nearest rank
            "max_ms": 1000 * every[-1],
            "browser_p50_ms": 1000 * statistics.median(browser_waits) if browser_waits else None,
            "one_more": beyond}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--browsers", type=int, default=2, help="Of each size, this many are Chromium pages.")
    parser.add_argument("--answers", type=int, default=5, help="Questions each learner answers.")
    parser.add_argument("--arrival", type=float, default=60.0,
                        help="Seconds over which the learners arrive, evenly (0: all at once).")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="quizzer-bench-serve-"))
    (workdir / "questions").mkdir()
    shutil.copy(QUESTION, workdir / "questions")
    env = {**os.environ, "QUIZZER_DB": str(workdir / "bank.sqlite"),
           "QUIZZER_QUESTIONS_DIR": str(workdir / "questions"),
           "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
    os.environ.update(env)
    from quizzer.bank.accounts import set_password
    from quizzer.learning.regrade import open_current_bank
    from quizzer.server.passwords import hash_password

    record = hash_password(PASSWORD)  # one record for all: the bench measures sessions, not scrypt
    engine, session = open_current_bank()
    with session:
        for i in range(max(args.sessions) + 1):  # and learner N+1, who finds the server full
            set_password(session=session, name=f"learner{i}", password_hash=record)
        session.commit()
    engine.dispose()
    print(f"{'sessions':>8} {'browsers':>8} {'RSS MiB/s':>9} {'PSS MiB/s':>9} {'per GiB':>7} {'ready95':>7} "
          f"{'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'Chromium p50':>12}  learner N+1", flush=True)
    for size in args.sessions:
        port = 18000 + size
        server = subprocess.Popen([sys.executable, "-m", "quizzer.cli", "serve", "--port", str(port),
                                   "--max-sessions", str(size)], env=env, stderr=subprocess.PIPE, text=True)
        assert server.stderr is not None
        server.stderr.readline()  # the URL: it listens
        # Then keep what it (and its app processes) log: a pipe nobody drains would stop the server when it
        # fills, and a learner's session that ended early is explained there.
        log = workdir / f"server-{size}.log"
        sink = log.open("w", buffering=1)  # open as long as the server runs: the thread writes to it
        threading.Thread(target=shutil.copyfileobj, args=(server.stderr, sink), daemon=True).start()
        try:
            row = asyncio.run(one_size(f"http://127.0.0.1:{port}", server.pid, size, min(args.browsers, size),
                                       args.answers, args.arrival))
        except OutOfMemory as stopped:
            print(f"{size:>8}  stopped: the machine's memory ran low ({stopped}); no larger size tried", flush=True)
            break
        except (TimeoutError, ConnectionError) as limit:  # a learner not served: the machine's limit, a result
            print(f"{size:>8}  the machine's limit: {str(limit).split('; the screen')[0]} "
                  f"({len(app_processes(server.pid))} app processes running); no larger size tried", flush=True)
            break
        except Exception:
            print(f"{size:>8}  failed; the server's log is kept in {log}", flush=True)
            raise
        finally:
            server.send_signal(2)
            server.wait(120)
        browser = "" if row["browser_p50_ms"] is None else f"{row['browser_p50_ms']:.0f}"
        print(f"{row['sessions']:>8} {row['browsers']:>8} {row['rss_mib_per_session']:>9.0f} "
              f"{row['pss_mib_per_session']:>9.0f} {row['sessions_per_gib']:>7.1f} {row['dashboard_p95_s']:>7.1f} "
              f"{row['p50_ms']:>7.0f} {row['p95_ms']:>7.0f} {row['max_ms']:>7.0f} {browser:>12}  {row['one_more']}",
              flush=True)
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
