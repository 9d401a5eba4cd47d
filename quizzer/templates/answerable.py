"""Valid means answerable: the model answer, typed exactly as quizzer prints it, fits the answer box and
is graded correct.

``quizzer validate`` checks this on every seed it renders (``check_answerable``), so a template cannot
pass whose answer no learner could type: ``1/(x - x)`` (typing it is "division by zero"), ``x ** 9 ** 9``
(graded INCORRECT against itself), a 64×64 matrix longer than the typing limit.  A recall card
(``kind: text``) is rated by the learner, not graded, and has nothing to type back.
"""

from __future__ import annotations

from quizzer.common.errors import TemplateError
from quizzer.grading.parse import MAX_ANSWER_CHARS
from quizzer.grading.verdict import grade
from quizzer.templates.instance import Instance
from quizzer.templates.parts import in_part


def check_answerable(instance: Instance) -> None:
    """Refuse an instance whose printed answer a learner could not type back as correct."""
    for index, part in enumerate(instance.parts):  # each part is a question of its own
        try:
            check_answerable(part.question)
        except TemplateError as exc:
            raise in_part(exc, index) from None
    if instance.parts or instance.kind == "text":
        return
    typed = instance.answer_text
    if len(typed) > MAX_ANSWER_CHARS:
        raise TemplateError(f"field 'answer': the answer is written in {len(typed):,} characters, and a learner can "
                            f"type at most {MAX_ANSWER_CHARS:,}: ask for less of it (a row, an entry, a sum)")
    verdict = grade(instance.spec, typed)
    if verdict.verdict != "correct":
        shown = typed if len(typed) <= 60 else f"{typed[:60]}…"
        raise TemplateError(f"field 'answer': the answer typed as printed ({shown}) is graded {verdict.verdict} "
                            f"({verdict.feedback[:120]}), so no learner could answer it")
