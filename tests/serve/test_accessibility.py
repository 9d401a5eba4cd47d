"""WCAG, checked by axe-core (Deque's engine, the npm package, run inside Chromium) over the exported
HTML paper with its answer sheet and over every page ``quizzer serve`` shows (sign-in, a failed sign-in,
the app, the server is full, the teacher's report): no serious or critical violation of WCAG 2.1 A/AA.
And what axe cannot judge: every figure is an image with a text alternative, and every formula is
MathML whose ``alttext`` is its LaTeX.

axe-core is installed by .ci/run (``npm install --prefix .ci/node axe-core``); ``QUIZZER_AXE_JS``
names another copy of ``axe.min.js``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.databases import postgres_required
from tests.serve.helpers import REPO, chromium, free_port, served, use_one_question
from tests.serve.test_sign_in import PASSWORDS, add_accounts

pytestmark = pytest.mark.slow

AXE = Path(os.environ.get("QUIZZER_AXE_JS") or REPO / ".ci/node/node_modules/axe-core/axe.min.js")
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture
def axe() -> Path:
    if not AXE.exists():
        if postgres_required():  # CI: .ci/run installs it, so its absence is a failure
            pytest.fail(f"no axe-core at {AXE}", pytrace=False)
        pytest.skip("axe-core is not installed (npm install --prefix .ci/node axe-core)")
    return AXE


def serious_violations(page: Any) -> list[str]:
    """axe's serious and critical WCAG violations on the page as it is now, one line each."""
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("""async (tags) => {
        const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                            where: v.nodes.slice(0, 3).map(n => n.target.join(" "))}));
    }""", WCAG)
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['where']}" for v in violations
            if v["impact"] in ("serious", "critical")]


def test_the_exported_paper_and_answer_sheet(axe: Path, bundled_bank: Path, tmp_path: Path) -> None:
    from tests.cli_runner import run

    paper = tmp_path / "paper.html"
    code, _, err = run("export", "-f", "html", "--week", "1", "-n", "40", "--seed", "3", "-o", str(paper))
    assert code == 0, err
    with chromium() as browser:
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(paper.as_uri())
        figures = page.evaluate("""() => Array.from(document.querySelectorAll("svg")).map(
            svg => [svg.getAttribute("role"), svg.getAttribute("aria-label") || ""])""")
        assert figures and all(role == "img" and label.strip() for role, label in figures), figures
        formulas = page.evaluate("""() => Array.from(document.querySelectorAll("math")).map(
            m => m.getAttribute("alttext") || "")""")
        assert len(formulas) > 50 and all(tex.strip() for tex in formulas)
        assert any("\\\\" in tex for tex in formulas)  # LaTeX, not the rendered text
        assert serious_violations(page) == []


def test_every_served_page(axe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_one_question(tmp_path, monkeypatch)
    add_accounts()
    with served("--port", str(free_port()), "--max-sessions", "1") as (_, url), chromium() as browser:
        context = browser.new_context(viewport={"width": 1200, "height": 800})  # type: ignore[attr-defined]
        page = context.new_page()
        page.goto(url)
        assert serious_violations(page) == [], "sign-in"
        page.fill("#name", "teach")
        page.fill("#password", "wrong")
        page.keyboard.press("Enter")
        page.wait_for_selector(".error")
        assert serious_violations(page) == [], "a failed sign-in"
        page.fill("#password", PASSWORDS["teach"])
        page.keyboard.press("Enter")
        page.wait_for_url(url)
        page.wait_for_selector(".xterm-helper-textarea", state="attached")
        assert serious_violations(page) == [], "the app"
        full = context.new_page()  # the one place is taken by the first tab
        assert full.goto(url).status == 503
        assert serious_violations(full) == [], "the server is full"
        full.goto(url + "report")
        assert serious_violations(full) == [], "the class report"
        context.close()
