"""Consistency checks for the hand-written data files in data/.

The seeded course notes live outside the repository (../shared/seeds); the
tests that read them skip when that folder is absent, as in a user's clone.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
SEEDS = REPO.parent / "shared" / "seeds"
WEEK1_NOTES = SEEDS / "000_8bd4277a74b241ef.txt"
WEEK2_NOTES = SEEDS / "003_0562f7f80662d202.txt"

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-zA-Z0-9]+)*$")
RECORD_ID = re.compile(r"^(\d{4})(T[1-3])_([A-Z0-9]+)_([A-Z]+) Q(\d+)$")

# The eight canonical topics of the Week 2 notes' routing table, by exact name.
WEEK2_TABLE = {
    "teacher_forcing": "Teacher forcing",
    "causal_self_attention": "Masked (causal) self-attention",
    "cross_attention": "Cross-attention (encoder-decoder attention)",
    "decoder_output_params": "Decoder output layer and decoder parameter counts",
    "sinusoidal_positions": "Sinusoidal positional encoding",
    "residual_normalization": "Residual connections, LayerNorm vs BatchNorm",
    "training_tricks": "Training tricks: label smoothing, warm-up schedule, dropout",
    "transformer_data_flow": "The full Transformer data flow",
}
# Week 1 topics as the Week 1 notes name them (its table was lost).
WEEK1_NAMED = {
    "seq2seq_bottleneck": "Sequence-to-Sequence Bottleneck",
    "bahdanau_attention": "Bahdanau Attention",
    "self_attention_qkv": "Self-Attention",
    "scaled_dot_product_attention": "Scaled Dot-Product Attention",
    "multi_head_attention": "Multi-Head Attention",
    "ffn_post_norm": "Position-Wise Feed-Forward Network",
    "encoder_parameters": "Encoder Layer Parameter Count",
}
KINDS = {"dangerous", "ebook_correction", "common_error"}


def _load(name: str) -> dict:
    with open(DATA / name, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@pytest.fixture(scope="module")
def topics() -> list[dict]:
    return _load("topics.yaml")["topics"]


@pytest.fixture(scope="module")
def topic_ids(topics) -> set[str]:
    return {t["id"] for t in topics}


@pytest.fixture(scope="module")
def routing() -> dict:
    return _load("routing.yaml")


@pytest.fixture(scope="module")
def misconceptions() -> list[dict]:
    return _load("misconceptions.yaml")["misconceptions"]


def _notes(path: Path) -> str:
    if not path.is_file():
        pytest.skip(f"course notes not available at {path} (../shared is absent outside the dev workspace)")
    return path.read_text(encoding="utf-8")


# ----------------------------------------------------------------- topics


def test_topic_ids_unique_and_snake_case(topics):
    ids = [t["id"] for t in topics]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert all(SNAKE.match(i) for i in ids), ids


def test_topic_fields(topics):
    for t in topics:
        assert t["week"] in (1, 2), t["id"]
        assert t["section"].startswith(f"Week {t['week']} §"), t["id"]
        assert isinstance(t["name"], str) and t["name"], t["id"]
        assert isinstance(t["summary"], str) and t["summary"].strip(), t["id"]
        assert t["pages"] is None or t["pages"].startswith("PDF p"), t["id"]
        assert isinstance(t["prerequisites"], list), t["id"]


def test_prerequisites_exist_and_are_not_self(topics, topic_ids):
    for t in topics:
        for p in t["prerequisites"]:
            assert p in topic_ids, (t["id"], p)
            assert p != t["id"]
        assert len(set(t["prerequisites"])) == len(t["prerequisites"]), t["id"]


def test_prerequisite_graph_is_acyclic(topics):
    graph = {t["id"]: list(t["prerequisites"]) for t in topics}
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        assert state.get(node) != 1, "cycle: " + " -> ".join(path + [node])
        state[node] = 1
        for nxt in graph[node]:
            visit(nxt, path + [node])
        state[node] = 2

    for node in graph:
        visit(node, [])


def test_expected_prerequisite_chains(topics):
    graph = {t["id"]: set(t["prerequisites"]) for t in topics}

    def reaches(a: str, b: str) -> bool:  # is b a (transitive) prerequisite of a?
        seen, todo = set(), [a]
        while todo:
            for p in graph[todo.pop()]:
                if p == b:
                    return True
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return False

    for later, earlier in [
        ("scaled_dot_product_attention", "softmax"),
        ("scaled_dot_product_attention", "self_attention_qkv"),
        ("multi_head_attention", "scaled_dot_product_attention"),
        ("ffn_post_norm", "multi_head_attention"),
        ("encoder_parameters", "multi_head_attention"),
        ("causal_self_attention", "scaled_dot_product_attention"),
        ("cross_attention", "multi_head_attention"),
        ("decoder_output_params", "encoder_parameters"),
    ]:
        assert reaches(later, earlier), (later, earlier)


def test_week2_topics_match_the_notes_table(topics):
    by_id = {t["id"]: t for t in topics}
    for tid, name in WEEK2_TABLE.items():
        assert tid in by_id, tid
        assert by_id[tid]["name"] == name
        assert by_id[tid]["week"] == 2
    assert {t["id"] for t in topics if t["week"] == 2} == set(WEEK2_TABLE)


def test_week1_topics_present(topics):
    by_id = {t["id"]: t for t in topics}
    for tid, name in WEEK1_NAMED.items():
        assert by_id[tid]["name"] == name
        assert by_id[tid]["week"] == 1
    assert by_id["softmax"]["week"] == 1


def test_week1_topic_names_and_pages_appear_in_notes(topics):
    text = _notes(WEEK1_NOTES)
    for t in topics:
        if t["id"] in WEEK1_NAMED:
            assert f"; {t['name']})" in text, t["name"]
            assert t["pages"] in text, (t["id"], t["pages"])


def test_week2_topic_pages_appear_in_notes(topics):
    text = _notes(WEEK2_NOTES)
    for t in topics:
        if t["week"] == 2:
            assert t["pages"] in text, (t["id"], t["pages"])


# ---------------------------------------------------------------- routing


def test_routing_counts(routing):
    records = routing["records"]
    assert len(records) == 65
    assert sum(len(r["topics"]) for r in records) == 69
    assert sum(1 for r in records if len(r["topics"]) == 2) == 4
    assert all(1 <= len(r["topics"]) <= 2 for r in records)


def test_routing_ids_unique_and_consistent(routing):
    records = routing["records"]
    ids = [r["id"] for r in records]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    for r in records:
        assert RECORD_ID.match(r["id"]), r["id"]
        paper, question = r["id"].split(" ")
        assert r["paper"] == paper
        assert r["question"] == question
        assert len(set(r["topics"])) == len(r["topics"]), r["id"]


def test_routing_sorted_by_paper_then_question_number(routing):
    keys = [(r["paper"], int(r["question"][1:])) for r in routing["records"]]
    assert keys == sorted(keys)


def test_routing_topics_exist_and_follow_table_order(routing, topic_ids):
    order = list(WEEK2_TABLE)
    for r in routing["records"]:
        for tid in r["topics"]:
            assert tid in topic_ids, (r["id"], tid)
            assert tid in WEEK2_TABLE, (r["id"], tid)
        assert r["topics"] == sorted(r["topics"], key=order.index), r["id"]


def test_papers_list_matches_records(routing):
    papers = routing["papers"]
    ids = [p["id"] for p in papers]
    assert len(ids) == len(set(ids))
    assert set(ids) == {r["paper"] for r in routing["records"]}
    for p in papers:
        m = RECORD_ID.match(p["id"] + " Q1")
        assert m, p["id"]
        assert p["year"] == int(m.group(1))
        assert p["term"] == m.group(2)


def _parse_week2_table(text: str) -> set[tuple[str, str]]:
    start = text.index("Canonical topic Routed questions")
    end = text.index("2. Teacher forcing and causal self-attention", start)
    pairs: set[tuple[str, str]] = set()
    rows = 0
    for line in text[start:end].splitlines()[1:]:
        ids = re.findall(r"\d{4}T\d_[A-Z0-9]+_[A-Z]+ Q\d+", line)
        if not ids:
            continue
        rows += 1
        name = line[: line.index(ids[0])].strip()
        # every token after the topic name must be a record id
        assert line[line.index(ids[0]):].strip() == " · ".join(ids), line
        for rid in ids:
            assert (rid, name) not in pairs, (rid, name)
            pairs.add((rid, name))
    assert rows == 8
    return pairs


def test_routing_equals_the_notes_table(routing, topics):
    text = _notes(WEEK2_NOTES)
    from_notes = _parse_week2_table(text)
    name_of = {t["id"]: t["name"] for t in topics}
    from_yaml = {(r["id"], name_of[tid]) for r in routing["records"] for tid in r["topics"]}
    assert len(from_notes) == 69
    assert len({rid for rid, _ in from_notes}) == 65
    assert from_yaml == from_notes


# --------------------------------------------------------- misconceptions


def test_misconception_ids_unique(misconceptions):
    ids = [m["id"] for m in misconceptions]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert all(SNAKE.match(i) for i in ids), ids


def test_misconception_fields_and_topics(misconceptions, topic_ids):
    for m in misconceptions:
        assert m["kind"] in KINDS, m["id"]
        for key in ("title", "claim", "correction", "source"):
            assert isinstance(m[key], str) and m[key].strip(), (m["id"], key)
        assert m["topics"], m["id"]
        for tid in m["topics"]:
            assert tid in topic_ids, (m["id"], tid)
        assert re.match(r"Week [12] §\d", m["source"]), m["id"]


def test_misconception_kind_counts(misconceptions):
    kinds = Counter(m["kind"] for m in misconceptions)
    assert kinds["dangerous"] == 10
    assert kinds["ebook_correction"] == 2
    per_week = Counter(m["source"][:6] for m in misconceptions if m["kind"] == "dangerous")
    assert per_week == {"Week 1": 8, "Week 2": 2}
    for m in misconceptions:
        if m["kind"] == "dangerous":
            assert m["source"].endswith("Dangerous Misconception"), m["id"]
        if m["kind"] == "ebook_correction":
            assert "Ebook correction (PDF p." in m["source"], m["id"]


def test_template_error_ids_present(misconceptions):
    ids = {m["id"] for m in misconceptions}
    required = {
        "no_sqrt_dk_scaling", "softmax_over_wrong_axis", "k_instead_of_k_transpose",
        "future_values_zeroed", "forgot_biases", "forgot_layernorm_params",
        "counted_tied_weights_twice", "label_smoothing_other_convention",
        "teacher_forcing_no_shift", "layernorm_over_batch", "unbiased_variance",
        "pe_sin_cos_swapped", "pe_wrong_frequency_index", "warmup_wrong_branch",
        "decoder_one_attention", "encoder_two_attention", "sum_over_keys",
        "score_entries_linear_in_T", "heads_add_params",
        "per_head_weights_32178", "ffn_w1x_instead_of_xw1", "wo_applied_on_left",
        "ebook_two_head_example_numbers",
    }
    assert required <= ids, sorted(required - ids)


def test_box_counts_match_the_notes(misconceptions):
    week1, week2 = _notes(WEEK1_NOTES), _notes(WEEK2_NOTES)
    dangerous = [m for m in misconceptions if m["kind"] == "dangerous"]
    assert week1.count("The Dangerous Misconception:") == sum(
        m["source"].startswith("Week 1") for m in dangerous)
    assert week2.count("The Dangerous Misconception:") == sum(
        m["source"].startswith("Week 2") for m in dangerous)
    cited = sorted(re.findall(r"Ebook correction \(PDF p\. \d+\)", week1 + week2))
    listed = sorted(m["source"].split("§5 ")[1] for m in misconceptions
                    if m["kind"] == "ebook_correction")
    assert listed == cited


def test_dangerous_claims_quote_the_notes(misconceptions):
    """Each Dangerous claim is the box's statement (LaTeX delimiters and spaces ignored)."""
    text = _notes(WEEK1_NOTES) + _notes(WEEK2_NOTES)
    squash = lambda s: re.sub(r"\s+|\\\(|\\\)", "", s)  # noqa: E731
    boxes = {squash(b) for b in re.findall(r"The Dangerous Misconception: (.+?) Why this is false:", text)}
    assert len(boxes) == 10
    claims = {squash(m["claim"]) for m in misconceptions if m["kind"] == "dangerous"}
    assert claims == boxes
