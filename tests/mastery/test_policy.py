"""The practice policy: due reviews first, prerequisite gating, weakest topic, interleaving, determinism."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from quizzer.learning.mastery import DEFAULTS, TopicMastery
from quizzer.learning.policy import Candidate, Pick, next_question
from quizzer.learning.review import Rating, ReviewState, new_state, review
from quizzer.templates.catalog import Topic

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def topic(id_: str, name: str, *prerequisites: str) -> Topic:
    return Topic(id_, name, 1, "§1", None, "", tuple(prerequisites))


TOPICS = {
    "softmax": topic("softmax", "Softmax"),
    "sdpa": topic("sdpa", "Scaled Dot-Product Attention", "softmax"),
    "mha": topic("mha", "Multi-Head Attention", "sdpa"),
    "layernorm": topic("layernorm", "LayerNorm"),
}
CANDIDATES = [
    Candidate("practice/softmax-a", ("softmax",)),
    Candidate("practice/softmax-b", ("softmax",)),
    Candidate("practice/sdpa-a", ("sdpa",)),
    Candidate("practice/mha-a", ("mha", "sdpa")),
    Candidate("practice/ln-a", ("layernorm",)),
]


def m(p: float) -> TopicMastery:
    return TopicMastery(level=p, attempts=1, correct=0)


def state_due(due: datetime) -> ReviewState:
    return ReviewState(due=due, last_review=due - DAY)


def pick(mastery: dict[str, TopicMastery], states: dict[str, ReviewState] | None = None,
         recent: list[str] | None = None, candidates: list[Candidate] | None = None, seed: int = 0) -> Pick:
    return next_question(CANDIDATES if candidates is None else candidates, mastery, states or {}, TOPICS,
                         recent or [], NOW, random.Random(seed))


STRONG = {"softmax": m(0.9), "sdpa": m(0.8), "mha": m(0.7), "layernorm": m(0.9)}


def test_due_reviews_win_most_overdue_first() -> None:
    states = {"practice/ln-a": state_due(NOW - DAY), "practice/sdpa-a": state_due(NOW - 3 * DAY),
              "practice/softmax-a": state_due(NOW + DAY)}   # not yet due
    chosen = pick({"softmax": m(0.1)}, states)
    assert chosen.key == "practice/sdpa-a"
    assert chosen.reason == "review due (3 d overdue)"


def test_a_state_due_exactly_now_counts() -> None:
    assert pick(STRONG, {"practice/ln-a": state_due(NOW)}) == Pick("practice/ln-a", "review due")
    assert pick(STRONG, {"practice/ln-a": state_due(NOW - timedelta(hours=5))}).reason == "review due (5 h overdue)"


def test_weakest_topic_when_nothing_is_due() -> None:
    mastery = dict(STRONG, layernorm=m(0.23))
    chosen = pick(mastery, {"practice/sdpa-a": state_due(NOW + DAY)})
    assert chosen == Pick("practice/ln-a", "weakest topic: LayerNorm (23%)", "layernorm")


def test_prerequisite_gating() -> None:
    # mha is weakest but its prerequisite sdpa (0.3) is below 0.6: sdpa itself is the weakest unlocked topic.
    mastery = {"softmax": m(0.9), "sdpa": m(0.3), "mha": m(0.05), "layernorm": m(0.5)}
    chosen = pick(mastery)
    assert chosen.topic == "sdpa"
    assert chosen.key == "practice/sdpa-a"  # mha-a carries sdpa too, but is about mha
    # Once sdpa reaches 0.6, mha unlocks and is chosen.
    assert pick(dict(mastery, sdpa=m(0.6))).topic == "mha"


def test_unseen_topics_sit_at_the_prior_and_gate_their_dependants() -> None:
    # Nothing attempted: every topic at the prior level (20 %): only topics without practisable prerequisites open.
    chosen = pick({}, seed=3)
    assert chosen.topic in {"softmax", "layernorm"}
    assert chosen.reason.endswith("(not tried yet)") and DEFAULTS.prior_level < 0.6


def test_a_prerequisite_without_templates_does_not_gate() -> None:
    only_sdpa = [Candidate("practice/sdpa-a", ("sdpa",)), Candidate("practice/ln-a", ("layernorm",))]
    # softmax has no candidate template, so weak softmax cannot block sdpa.
    chosen = pick({"softmax": m(0.0), "sdpa": m(0.1), "layernorm": m(0.4)}, candidates=only_sdpa)
    assert chosen.key == "practice/sdpa-a"


def test_least_recently_seen_template_of_the_topic() -> None:
    mastery = dict(STRONG, softmax=m(0.1))
    seen = {"practice/softmax-a": ReviewState(due=NOW + DAY, last_review=NOW - DAY),
            "practice/softmax-b": ReviewState(due=NOW + DAY, last_review=NOW - 2 * DAY)}
    assert pick(mastery, seen).key == "practice/softmax-b"
    # A never-seen template comes before any seen one.
    assert pick(mastery, {"practice/softmax-b": seen["practice/softmax-b"]}).key == "practice/softmax-a"


def test_a_question_about_the_weakest_topic_comes_before_one_that_touches_it() -> None:
    """mha-a lists sdpa second: its answers cannot show sdpa mastered, so sdpa-a is asked even when
    mha-a was seen longer ago; with sdpa-a just shown (interleaving), mha-a is the one left."""
    mastery = dict(STRONG, sdpa=m(0.1))
    seen = {"practice/sdpa-a": ReviewState(due=NOW + DAY, last_review=NOW - DAY)}
    assert pick(mastery, seen) == Pick("practice/sdpa-a", "weakest topic: Scaled Dot-Product Attention (10%)", "sdpa")
    assert pick(mastery, seen, recent=["practice/sdpa-a"]).key == "practice/mha-a"


def test_never_the_same_template_twice_in_a_row() -> None:
    # The only due review was just shown: interleave something else.
    states = {"practice/ln-a": state_due(NOW - DAY)}
    assert pick(STRONG, states, recent=["practice/ln-a"]).key != "practice/ln-a"
    for seed in range(20):
        assert pick(dict(STRONG, softmax=m(0.1)), recent=["practice/softmax-a"], seed=seed).key \
            == "practice/softmax-b"


def test_recent_keys_are_avoided_while_alternatives_exist() -> None:
    mastery = dict(STRONG, softmax=m(0.1))
    recent = ["practice/softmax-a", "practice/softmax-b"]
    # Both softmax templates are recent.  Of the rest, sdpa (0.8) is locked by softmax (0.1 < 0.6),
    # so the weakest unlocked topic is mha (0.7, its prerequisite sdpa is at 0.8), not layernorm (0.9).
    assert pick(mastery, recent=recent) == Pick("practice/mha-a", "weakest topic: Multi-Head Attention (70%)", "mha")


def test_an_untried_topic_is_named_as_such_not_by_the_prior_level() -> None:
    """Issue 22: on a fresh bank the first question said "weakest topic: … (20%)" and `p` on a new
    topic "topic: … (20%)" while the dashboard showed "–": the prior is no score the student earned."""
    fresh = next_question(CANDIDATES, {}, {}, TOPICS, [], NOW, random.Random(0))
    assert fresh.reason.startswith("weakest topic: ") and fresh.reason.endswith("(not tried yet)")
    focused = next_question(CANDIDATES, {"softmax": m(0.9)}, {}, TOPICS, [], NOW, random.Random(0), focus="mha")
    assert focused.reason == "topic: Multi-Head Attention (not tried yet) · new question"
    # a topic with a record but no attempts (as a mastery replay may give) is untried too
    unseen = next_question(CANDIDATES, {"mha": TopicMastery(0.2)}, {}, TOPICS, [], NOW, random.Random(0), focus="mha")
    assert "(not tried yet)" in unseen.reason


def test_when_interleaving_leaves_only_locked_topics_the_weakest_is_taken() -> None:
    pair = [Candidate("practice/softmax-a", ("softmax",)), Candidate("practice/sdpa-a", ("sdpa",))]
    chosen = pick({"softmax": m(0.1), "sdpa": m(0.15)}, candidates=pair, recent=["practice/softmax-a"])
    assert chosen == Pick("practice/sdpa-a",
                          "weakest topic: Scaled Dot-Product Attention (15%); prerequisites not yet mastered", "sdpa")


def test_topic_less_templates_are_spread_by_recency() -> None:
    loose = [Candidate("practice/loose-a", ()), Candidate("practice/loose-b", ())]
    seen = {"practice/loose-a": ReviewState(due=NOW + DAY, last_review=NOW - DAY)}
    assert pick(STRONG, seen, candidates=loose) == Pick("practice/loose-b", "least recently seen")


def test_recent_avoidance_relaxes_but_never_repeats_the_last() -> None:
    pair = [Candidate("practice/sdpa-a", ("sdpa",)), Candidate("practice/ln-a", ("layernorm",))]
    chosen = pick(STRONG, candidates=pair, recent=["practice/sdpa-a", "practice/ln-a"])
    assert chosen.key == "practice/sdpa-a"   # both recent: anything but the last shown
    solo = [Candidate("practice/ln-a", ("layernorm",))]
    assert pick(STRONG, candidates=solo, recent=["practice/ln-a"]).key == "practice/ln-a"   # no alternative


def test_a_learning_step_due_in_a_minute_does_not_come_straight_back() -> None:
    just_failed = review(new_state(NOW - timedelta(minutes=2)), Rating.Again, NOW - timedelta(minutes=2))
    assert just_failed.due <= NOW
    chosen = pick(STRONG, {"practice/ln-a": just_failed}, recent=["practice/ln-a"])
    assert chosen.key != "practice/ln-a"
    assert pick(STRONG, {"practice/ln-a": just_failed}, recent=["practice/sdpa-a"]).key == "practice/ln-a"


def test_deterministic_with_a_seeded_rng_whatever_the_candidate_order() -> None:
    flat = {t: m(0.5) for t in TOPICS}   # all tied, all unlocked
    picks = [pick(flat, seed=7).key for _ in range(5)]
    shuffled = list(reversed(CANDIDATES))
    assert len(set(picks)) == 1
    assert pick(flat, candidates=shuffled, seed=7).key == picks[0]
    # Different seeds do spread over the tied templates.
    assert len({pick(flat, seed=seed).key for seed in range(40)}) > 1


def test_equally_overdue_reviews_are_broken_by_the_rng() -> None:
    states = {c.key: state_due(NOW - DAY) for c in CANDIDATES}
    keys = {pick(STRONG, states, seed=seed).key for seed in range(40)}
    assert len(keys) > 1
    assert pick(STRONG, states, seed=5) == pick(STRONG, states, seed=5)


def test_no_candidates_is_an_error() -> None:
    with pytest.raises(ValueError):
        pick(STRONG, candidates=[])


def test_naive_now_is_rejected() -> None:
    with pytest.raises(ValueError, match="naive"):
        next_question(CANDIDATES, STRONG, {}, TOPICS, [], NOW.replace(tzinfo=None), random.Random(0))


def test_a_focus_topic_names_itself_even_when_a_template_also_covers_a_weaker_topic() -> None:
    """`p` on SDPA: practice/mha-a also covers MHA (weaker), yet SDPA is what was asked."""
    sdpa = [c for c in CANDIDATES if "sdpa" in c.topics]
    mastery = {"softmax": m(0.9), "sdpa": m(0.7), "mha": m(0.1)}
    chosen = next_question(sdpa, mastery, {}, TOPICS, [], NOW, random.Random(0), focus="sdpa")
    assert chosen.topic == "sdpa" and chosen.reason == "topic: Scaled Dot-Product Attention (70%) · new question"
    unfocused = next_question(sdpa, mastery, {}, TOPICS, [], NOW, random.Random(0))
    assert "Multi-Head" in unfocused.reason  # without the focus the weakest covered topic would be named
    due = {"practice/mha-a": state_due(NOW - timedelta(minutes=5))}
    review_first = next_question(sdpa, mastery, due, TOPICS, [], NOW, random.Random(0), focus="sdpa")
    assert review_first.key == "practice/mha-a"
    assert review_first.reason == "topic: Scaled Dot-Product Attention · review due (5 min overdue)"


def test_a_short_term_step_does_not_return_a_question_answered_right_in_this_sitting() -> None:
    answered = review(new_state(NOW - timedelta(minutes=20)), Rating.Good, NOW - timedelta(minutes=20))
    assert answered.due <= NOW  # its 10-minute learning step is due again
    states = {"practice/ln-a": answered}
    assert pick({}, states).key == "practice/ln-a"  # another sitting: the review comes first
    settled = next_question(CANDIDATES, {}, states, TOPICS, [], NOW, random.Random(0),
                            settled={"practice/ln-a"})
    assert not settled.reason.startswith("review due")
