"""The browser face in Chromium (Debian's, through Playwright), on a bank with accounts: alice signs in
with the keyboard alone, the app has the keyboard as soon as it is on screen, ctrl+a selects the
answer so typing replaces it, her answer is hers in the bank, the page asks nothing of any other
server (its font is bundled), and signing out in one tab ends the session in her other tab.

Screenshots of each step are kept in the test's tmp_path (CI keeps them when a test fails)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.serve.helpers import (
    REPO,
    Screen,
    app_profiles,
    attempts,
    children,
    chromium,
    free_port,
    served,
    wait_until,
)
from tests.serve.test_sign_in import PASSWORDS, add_accounts

pytestmark = pytest.mark.slow

QUESTION = REPO / "questions/week1/seq2seq_bottleneck/practice-w1c-seq2seq-context-numbers.yaml"  # a number


def test_alice_signs_in_answers_and_signs_out_of_both_tabs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "questions"
    folder.mkdir()
    shutil.copy(QUESTION, folder)
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(folder))
    add_accounts()
    with served("--port", str(free_port())) as (server, url), chromium() as browser:
        context = browser.new_context(viewport={"width": 1200, "height": 800})  # type: ignore[attr-defined]
        requested: list[str] = []
        context.on("request", lambda request: requested.append(request.url))
        page = context.new_page()
        screen = Screen(page)
        page.goto(url)
        assert page.url == url + "signin"
        page.screenshot(path=str(tmp_path / "1-signin.png"))
        page.keyboard.type("alice")  # the name box has the keyboard already
        page.keyboard.press("Tab")
        page.keyboard.type(PASSWORDS["alice"])
        page.keyboard.press("Enter")
        page.wait_for_url(url)
        screen.wait_for("profile alice")
        screen.wait_for(" reviews due")
        page.screenshot(path=str(tmp_path / "2-dashboard.png"))
        page.keyboard.press("Enter")  # no click: the terminal has the keyboard on load
        screen.wait_for("How much of the source")
        screen.wait_for("enter submit")  # the answer box is on screen (keys before it are dropped: key gate)
        page.keyboard.type("11264")
        screen.wait_for("11264")
        page.keyboard.press("Control+a")  # selects the answer, so what is typed next replaces it
        page.keyboard.type("12800")
        page.keyboard.press("Enter")
        wait_until(attempts, "the attempt in the bank")
        assert attempts() == [("alice", "practice/w1c-seq2seq-context-numbers", "12800")], screen.text()[-2000:]
        screen.wait_for("enter the solution")  # a wrong answer: the offer to try again first
        page.keyboard.press("Enter")
        screen.wait_for("h⃗ᵢ;h⃖ᵢ")  # the solution, drawn with the bundled font
        page.screenshot(path=str(tmp_path / "3-solution.png"))
        faces = page.evaluate("Array.from(document.fonts).map(f => f.family + ' ' + f.weight + ' ' + f.status)")
        assert '"Roboto Mono" 400 loaded' in faces or "Roboto Mono 400 loaded" in faces, faces

        other = context.new_page()  # a second tab: a second app process, alice's too
        other.goto(url)
        wait_until(lambda: app_profiles(server.pid) == ["alice", "alice"], "two app processes for alice")
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(url + "signin")
        other.wait_for_selector("body.-closed")  # the other tab's session has ended
        other.screenshot(path=str(tmp_path / "4-other-tab-ended.png"))
        wait_until(lambda: not children(server.pid), "both app processes ended")
        other.reload()
        assert other.url == url + "signin"
        context.close()
    assert requested and all(request.startswith(url) for request in requested), sorted(set(requested))
