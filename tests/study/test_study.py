"""The study service on a fresh bank: choosing, grading with memory, and the dashboard's numbers."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from bench.simulated_learners import wrong_response
from quizzer.bank.learners import ensure_learner
from quizzer.bank.models import Attempt, ReviewCard
from quizzer.grading.describe import describe
from quizzer.learning.dashboard_rows import TopicRow
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import Instance, make_instance
from tests.databases import bank_session
from tests.tui.conftest import START, FakeClock

TYPED = ("number", "integer", "vector", "matrix", "shape", "bool", "expression")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def session(bundled_bank_url: str) -> Iterator[Session]:
    with bank_session(bundled_bank_url) as session:
        yield session


@pytest.fixture
def study(session: Session, clock: FakeClock) -> Study:
    learner = ensure_learner(session=session, name="ada")
    return Study(session=session, catalog=load_catalog(), learner=learner, clock=clock, rng=random.Random(7))


def instance_of(study: Study, kind: str, *, misconception: bool = False, seed: int = 11) -> Instance:
    """The first template of ``kind`` (by key), optionally one with a misconception to answer."""
    for key in sorted(study.templates):
        template = study.templates[key]
        if template.kind == kind and (template.misconceptions or not misconception):
            return make_instance(template, seed)
    raise LookupError(kind)


def wrong_answer(instance: Instance) -> tuple[str, str]:
    """A response that makes the instance's first misconception, and that misconception's id."""
    wrong = instance.spec.wrong_answers[0]
    assert wrong.id is not None
    return describe(instance.kind, wrong.value), wrong.id


def topic_row(study: Study, topic: str) -> TopicRow:
    return next(row for row in study.dashboard().topics if row.id == topic)


# --- choosing ----------------------------------------------------------------------------------

def test_next_stays_within_the_topic(study: Study) -> None:
    for topic in ("softmax", "multi_head_attention", "teacher_forcing"):
        for _ in range(6):
            question = study.next(topic=topic)
            assert topic in question.instance.topics
            assert question.reason


def test_next_stays_within_the_week_and_the_paper(study: Study) -> None:
    for _ in range(8):
        assert study.next(week=2).instance.week == 2
    paper = "2024T3_Q1_NA"
    for _ in range(8):
        assert study.templates[study.next(paper=paper).instance.key].paper == paper


def test_next_never_repeats_the_last_template(study: Study) -> None:
    shown = [study.next().instance.key for _ in range(30)]
    narrow = [study.next(paper="2025T3_ET_AN").instance.key for _ in range(12)]  # a paper of 3 questions
    for keys in (shown, narrow):
        assert all(a != b for a, b in itertools.pairwise(keys))
    assert len(set(narrow)) == 3


def test_next_gives_fresh_numbers_and_refuses_an_empty_selection(study: Study) -> None:
    seeds = {study.next(topic="softmax").instance.seed for _ in range(6)}
    assert len(seeds) == 6
    with pytest.raises(LookupError):
        study.next(week=99)


# --- grading with memory -----------------------------------------------------------------------

def test_submit_records_the_attempt_and_its_review_card_in_one_commit(
        study: Study, session: Session, bundled_bank_url: str) -> None:
    instance = instance_of(study, "integer")
    commits: list[bool] = []
    event.listen(session, "after_commit", lambda _: commits.append(True))

    verdict = study.submit(instance, instance.answer_text, 12.5)

    assert verdict.verdict == "correct" and commits == [True]
    with bank_session(bundled_bank_url) as other:
        attempt = other.exec(select(Attempt)).one()
        card = other.exec(select(ReviewCard)).one()
    assert (attempt.template_key, attempt.seed, attempt.response) == (instance.key, instance.seed, instance.answer_text)
    assert (attempt.verdict, attempt.score, attempt.seconds, attempt.misconception) == ("correct", 1.0, 12.5, None)
    assert card.template_key == instance.key and card.state_json
    assert card.due > START  # scheduled ahead, by the study's clock


def test_a_second_answer_updates_the_same_review_card(study: Study, bundled_bank_url: str) -> None:
    instance = instance_of(study, "number")
    study.submit(instance, instance.answer_text, None)
    study.submit(instance, "0", None)
    with bank_session(bundled_bank_url) as other:
        assert [a.verdict for a in other.exec(select(Attempt).order_by(Attempt.id)).all()] == ["correct", "incorrect"]
        assert len(other.exec(select(ReviewCard)).all()) == 1


@pytest.mark.parametrize("kind, response", [("number", "twelve"), ("vector", "[1, 2"), ("integer", ""),
                                            ("choice", "z")])
def test_an_unreadable_answer_records_nothing(study: Study, session: Session, bundled_bank_url: str,
                                              kind: str, response: str) -> None:
    commits: list[bool] = []
    event.listen(session, "after_commit", lambda _: commits.append(True))

    verdict = study.submit(instance_of(study, kind), response, 3.0)

    assert verdict.verdict == "invalid" and verdict.feedback and commits == []
    with bank_session(bundled_bank_url) as other:
        assert other.exec(select(Attempt)).all() == [] and other.exec(select(ReviewCard)).all() == []


def test_a_misconception_is_named_and_recorded(study: Study, bundled_bank_url: str) -> None:
    instance = instance_of(study, "number", misconception=True)
    response, misconception = wrong_answer(instance)

    verdict = study.submit(instance, response, None)

    assert (verdict.verdict, verdict.misconception) == ("incorrect", misconception)
    with bank_session(bundled_bank_url) as other:
        assert other.exec(select(Attempt.misconception)).one() == misconception


def test_self_rating_a_recall_card(study: Study, bundled_bank_url: str) -> None:
    instance = instance_of(study, "text")

    assert study.submit(instance, "maybe", 20.0).verdict == "invalid"
    good = study.submit(instance, "good", 20.0)
    again = study.submit(instance, "again", 5.0)

    assert (good.verdict, good.score, good.reading) == ("correct", 1.0, "good")
    assert (again.verdict, again.score) == ("incorrect", 0.0)
    with bank_session(bundled_bank_url) as other:
        rows = other.exec(select(Attempt).order_by(Attempt.id)).all()
        assert [(a.response, a.verdict) for a in rows] == [("good", "correct"), ("again", "incorrect")]
        assert other.exec(select(ReviewCard.template_key)).one() == instance.key


# --- the dashboard -----------------------------------------------------------------------------

def test_a_fresh_dashboard(study: Study) -> None:
    data = study.dashboard()
    catalog = load_catalog()
    assert (data.attempts, data.due) == (0, 0)
    assert [row.id for row in data.topics] == list(catalog.topics)
    assert all(row.attempts == 0 and row.accuracy is None and row.mastery == 0 and not row.misconceptions
               for row in data.topics)
    assert all(row.templates > 0 for row in data.topics)
    assert [p.paper for p in data.papers] == catalog.papers
    assert sum(p.routed for p in data.papers) == len(catalog.records)
    assert all(p.done == 0 for p in data.papers)


def test_the_dashboard_counts_answers_and_accuracy(study: Study) -> None:
    right = instance_of(study, "integer")
    wrong = instance_of(study, "integer", seed=12)
    study.submit(right, right.answer_text, None)
    study.submit(wrong, "1", None)
    study.submit(instance_of(study, "number"), "nonsense", None)  # invalid: not counted

    data = study.dashboard()
    assert data.attempts == 2
    for topic in right.topics:
        row = next(r for r in data.topics if r.id == topic)
        assert row.attempts == 2 and row.accuracy == pytest.approx(0.5)


def test_mastery_rises_with_correct_answers(study: Study) -> None:
    topic = "softmax"
    levels = [topic_row(study, topic).mastery]
    for _ in range(3):
        instance = study.next(topic=topic).instance
        response = "good" if instance.kind == "text" else instance.answer_text
        grade = study.submit
        assert grade(instance, response, 30.0).verdict == "correct"
        levels.append(topic_row(study, topic).mastery)
    assert levels == sorted(levels) and levels[-1] > levels[0]
    assert topic_row(study, topic).accuracy == 1.0


def test_reviews_fall_due_as_the_clock_advances(study: Study, clock: FakeClock) -> None:
    answered = [instance_of(study, kind) for kind in ("integer", "number", "bool")]
    for instance in answered:
        study.submit(instance, instance.answer_text, 10.0)
    assert study.dashboard().due == 0

    clock.advance(days=1)

    data = study.dashboard()
    assert data.due == 3
    due_rows = {row.id: row.due for row in data.topics if row.due}
    # Each once, in its question's primary topic: the column adds up to the count above it (a student
    # read "11 reviews due" over a column adding up to 17, with an untried topic showing one).
    assert set(due_rows) == {instance.topics[0] for instance in answered} and sum(due_rows.values()) == 3
    assert all(row.attempts for row in data.topics if row.due)
    # Due reviews no longer jump the queue (issue 38): while topics remain untried, the plan tries them.
    choice = study.choose()
    assert choice.topic is not None and study.plan_state().topic_answers[choice.topic] == 0
    assert "not tried yet" in choice.reason


def test_a_review_due_counts_once_in_its_questions_primary_topic(study: Study, clock: FakeClock) -> None:
    """A question of three topics answered wrong: its review is due once, under the topic its tries are."""
    key = next(k for k in sorted(study.templates) if len(study.templates[k].topics) >= 3
               and study.templates[k].kind == "number" and study.templates[k].misconceptions)
    wrong = make_instance(study.templates[key], 11)
    study.submit(wrong, wrong_answer(wrong)[0], 10.0)
    clock.advance(days=1)
    data = study.dashboard()
    due_rows = {row.id: (row.due, row.attempts) for row in data.topics if row.due}
    assert data.due == 1 and due_rows == {wrong.topics[0]: (1, 1)}


def test_a_question_answered_right_is_not_due_within_the_sitting(study: Study, clock: FakeClock) -> None:
    """Issue 22: after 24 answers the dashboard said "17 reviews due", counting questions answered
    right minutes before, which practice holds back for the sitting."""
    right, wrong = instance_of(study, "integer"), instance_of(study, "number", misconception=True)
    study.submit(right, right.answer_text, 10.0)
    study.submit(wrong, wrong_answer(wrong)[0], 10.0)
    clock.advance(minutes=30)  # past the minutes-long learning steps of both
    assert study.dashboard().due == 1
    assert study.choose().key != right.key  # and the plan does not ask it again within the sitting

    clock.advance(hours=2)  # the sitting is over: the right one is due again like any other
    assert study.dashboard().due == 2


def test_the_most_frequent_misconception_per_topic(study: Study) -> None:
    instance = instance_of(study, "number", misconception=True)
    response, misconception = wrong_answer(instance)
    study.submit(instance, response, None)
    study.submit(instance, response, None)
    study.submit(instance, instance.answer_text, None)

    for topic in instance.topics:
        assert topic_row(study, topic).misconceptions[0] == (misconception, 2)
    untouched = [row for row in study.dashboard().topics if row.id not in instance.topics]
    assert all(not row.misconceptions for row in untouched)



def test_a_topic_counts_every_answer_to_its_questions(study: Study) -> None:
    """Tries, accuracy and mistakes count every answer to a question that lists the topic, right or wrong, as
    a student counts them (Bahdanau once showed "1 try, 100 %" right after a wrong Bahdanau question, one whose
    primary topic was another).  The mastery model still blames a wrong answer on the primary topic alone."""
    instance = make_instance(study.templates["practice/w1c-in-proj-slicing"], 11)
    primary, secondary = instance.topics
    response, misconception = wrong_answer(instance)
    study.submit(instance, response, None)
    assert topic_row(study, secondary).attempts == 1 and topic_row(study, secondary).accuracy == 0
    study.submit(instance, instance.answer_text, None)
    first, second = topic_row(study, primary), topic_row(study, secondary)
    assert (first.attempts, first.accuracy, first.misconceptions) == (2, 0.5, ((misconception, 1),))
    assert (second.attempts, second.accuracy, second.misconceptions) == (2, 0.5, ((misconception, 1),))
    mastery = study.mastery()
    assert (mastery[primary].attempts, mastery[secondary].attempts) == (2, 1)  # the evidence behind each bar

# --- mock exams --------------------------------------------------------------------------------

def test_paper_instances_in_question_order(study: Study) -> None:
    paper = "2024T3_Q1_NA"
    instances = study.paper_instances(paper, seed=5)
    numbers = [int(i.key.rsplit("Q", 1)[1]) for i in instances]
    assert numbers == sorted(numbers)
    assert {i.key for i in instances} == {k for k, t in study.templates.items() if t.paper == paper}
    assert {i.seed for i in instances} == {5}
    assert [i.answer_text for i in study.paper_instances(paper, seed=5)] == [i.answer_text for i in instances]
    with pytest.raises(LookupError):
        study.paper_instances("1999T1_XX", seed=5)


def papers(study: Study) -> dict[str, tuple[int, int]]:
    return {row.paper: (row.done, row.routed) for row in study.dashboard().papers}


def test_a_paper_is_done_only_by_its_own_questions_answered_right(study: Study, clock: FakeClock) -> None:
    """Not by topic mastery: papers never answered stay at 0/N however well their topics are known."""
    exam = "2026T2_Q2_NA"
    for number, instance in enumerate(study.paper_instances(exam, seed=41)):  # a mock exam: 4/4 right
        clock.advance(minutes=2)
        assert study.submit(instance, "good" if instance.kind == "text" else instance.answer_text,
                            60.0).verdict == "correct", number
    for _ in range(30):  # and much right practice besides, none of it on the two one-question papers
        clock.advance(minutes=2)
        instance = study.next(week=2).instance
        if instance.key not in ("2024T1_ET_AN Q1", "2024T1_ET_FN Q1") and study.templates[instance.key].paper is None:
            study.submit(instance, "good" if instance.kind == "text" else instance.answer_text, 60.0)
    progress = papers(study)
    assert progress[exam] == (4, 4)
    untouched = {paper for paper in progress
                 if not any(study.templates[a.template_key].paper == paper for a in study.attempts())}
    assert untouched and all(progress[paper][0] == 0 for paper in untouched)
    # A later wrong answer to one of the exam's questions takes it off: the latest answer counts.
    clock.advance(minutes=2)
    first = study.paper_instances(exam, seed=42)[0]
    assert study.submit(first, wrong_response(first, random.Random(1)), 60.0).verdict in ("incorrect", "partial")
    assert papers(study)[exam] == (3, 4)


# --- learners ------------------------------------------------------------------------------------

def test_each_learner_sees_only_their_own_progress(study: Study, session: Session, clock: FakeClock) -> None:
    instance = instance_of(study, "integer")
    wrong, misconception = wrong_answer(instance_of(study, "integer", misconception=True))
    study.submit(instance, instance.answer_text, 10.0)
    study.submit(instance_of(study, "integer", misconception=True), wrong, 10.0)
    bob = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name="bob"),
                clock=clock, rng=random.Random(7))

    assert len(study.attempts()) == 2 and bob.attempts() == []
    assert set(study.review_states()) and bob.review_states() == {}
    assert study.dashboard().attempts == 2 and bob.dashboard().attempts == 0
    assert any(dict(row.misconceptions).get(misconception) for row in study.dashboard().topics)
    assert not any(row.misconceptions or row.attempts for row in bob.dashboard().topics)
    assert bob.mastery() == study.mastery([]) != study.mastery()  # bob's mastery: that of no attempts at all

    bob.submit(instance, "0", 5.0)  # bob's card for the same template is his own
    assert study.review_states()[instance.key] != bob.review_states()[instance.key]
    assert [a.verdict for a in study.attempts()] == ["correct", "incorrect"]
    assert [a.verdict for a in bob.attempts()] == ["incorrect"]


def answer(study: Study, instance: Instance, right: bool) -> None:
    if instance.parts:  # one answer per part; every part wrong, or every part right
        study.answer_parts(instance, [p.question.answer_text if right else "123456789" for p in instance.parts], 20.0)
        return
    response = ("good" if right else "again") if instance.kind == "text" else (
        instance.answer_text if right else "banana")
    grade = study.submit
    grade(instance, response, 20.0)


def test_running_mastery_equals_a_full_replay(study: Study, clock: FakeClock) -> None:
    """The app folds each answer into the mastery it keeps; it must agree with replaying everything."""
    for number in range(24):
        clock.advance(minutes=3)
        instance = study.next().instance
        answer(study, instance, right=number % 3 != 0)
        assert study.mastery() == study.mastery(study.attempts())
    assert len(study.attempts()) > 0


def test_running_mastery_sees_answers_given_in_another_window(study: Study, session: Session,
                                                             bundled_bank_url: str, clock: FakeClock) -> None:
    first = study.next(topic="softmax").instance
    answer(study, first, right=True)
    before = study.mastery()
    with bank_session(bundled_bank_url) as elsewhere:  # the same learner, another window
        other = Study(session=elsewhere, catalog=study.catalog, learner=ensure_learner(session=elsewhere, name="ada"),
                      clock=clock, rng=random.Random(3))
        clock.advance(minutes=1)
        answer(other, other.next(topic="softmax").instance, right=True)
    after = study.mastery()
    assert after["softmax"].attempts == before["softmax"].attempts + 1
    assert after == study.mastery(study.attempts())


def test_a_multi_part_question_counts_each_routed_part_on_its_paper(study: Study, clock: FakeClock) -> None:
    """A chain's parts that carry routed IDs of their own (Q279's part (c) is Q280) are done by their
    own parts' answers: right parts count, a wrong one does not."""
    paper = "2024T3_Q1_NA"
    chain = next(i for i in study.paper_instances(paper, seed=3) if i.key == f"{paper} Q279")
    routed = [part for part in chain.parts if part.id]
    assert len(routed) >= 2  # the chain's own key and at least one other record
    before = papers(study)[paper][0]
    answers = [part.question.answer_text for part in chain.parts]
    answers[-1] = wrong_response(chain.parts[-1].question, random.Random(2))
    verdicts, _ = study.answer_parts(chain, answers, 60.0)
    right_routed = sum(1 for part, verdict in zip(chain.parts, verdicts, strict=True)
                       if part.id and verdict.verdict.verdict == "correct")
    assert verdicts[-1].verdict.verdict != "correct"
    assert 1 <= right_routed < len(routed)
    assert papers(study)[paper][0] == before + right_routed


def test_a_multi_part_question_without_routed_parts_is_done_when_every_part_is_right(study: Study) -> None:
    """Q275's parts carry no IDs of their own: they all answer Q275, which is done only when the whole
    latest answer is right (the last part alone once decided it)."""
    paper, key = "2024T3_Q1_NA", "2024T3_Q1_NA Q275"
    chain = next(i for i in study.paper_instances(paper, seed=3) if i.key == key)
    assert not any(part.id and part.id != key for part in chain.parts)
    right = [part.question.answer_text for part in chain.parts]
    before = papers(study)[paper][0]
    study.answer_parts(chain, [wrong_response(chain.parts[0].question, random.Random(1)), *right[1:]], 60.0)
    assert papers(study)[paper][0] == before
    study.answer_parts(chain, right, 60.0)
    assert papers(study)[paper][0] == before + 1


def test_a_part_right_only_on_the_learners_own_value_does_not_do_its_paper_question(study: Study) -> None:
    """Q280 (Q279's part (c)) right on a wrong (a) earns its follow-through credit, yet the paper's
    question was not answered right on its own numbers."""
    paper = "2024T3_Q1_NA"
    chain = next(i for i in study.paper_instances(paper, seed=3) if i.key == f"{paper} Q279")
    mine = 1_000_000  # a wrong layer count, and the stack and total computed from it
    stack = mine * chain.values["n_layers"]
    total = chain.values["embedding"] + stack + chain.values["output"]
    verdicts, _ = study.answer_parts(chain, [str(mine), str(stack), str(total)], 60.0)
    assert [v.carried_forward for v in verdicts] == [False, True, True]
    assert all(v.verdict.verdict == "correct" for v in verdicts[1:])
    assert papers(study)[paper][0] == 0
