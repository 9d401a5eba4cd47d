"""The question-template format: one YAML file, one self-describing question.

The format is documented for authors in ``questions/README.md``; this module is its
executable definition, the whole of it in one place (which is why it runs past 400 lines).
Every struct forbids unknown fields so a typo is an error with a suggestion, never a silently
ignored setting.

The structs are msgspec's: ``msgspec.convert`` checks a parsed YAML mapping against them (types,
bounds, lengths, unknown fields) in C, and each ``__post_init__`` checks what types cannot say.
Why not pydantic, the usual choice: every one-question command (``quizzer show``) reads one
template, and importing pydantic and building these models was about 130 ms of its start-up,
against about 25 ms for msgspec (the goal is 8x a bare ``python -c pass``, about 240 ms).  A
``__post_init__`` names the field it refuses with :class:`FieldProblem`; the loader turns
msgspec's error into one line naming field and line (``loader._first_error``).
"""

from __future__ import annotations

import functools
import keyword
import re
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field

from quizzer.common.errors import did_you_mean

KINDS = ("number", "integer", "vector", "matrix", "shape", "choice", "multi", "order", "bool", "expression", "text",
         "parts")
Kind = Literal["number", "integer", "vector", "matrix", "shape", "choice", "multi", "order", "bool", "expression",
               "text", "parts"]
# A part asks for one computed value, which a later part may be computed from (follow-through).
PART_KINDS = ("number", "integer", "vector", "matrix")
PartKind = Literal["number", "integer", "vector", "matrix"]
# Marks a question is worth when its template gives no ``points:``: by how much work its answer takes.
DEFAULT_POINTS: dict[str, float] = {"bool": 1, "choice": 1, "shape": 1, "integer": 2, "number": 2, "multi": 2,
                                    "order": 2, "expression": 2, "vector": 2, "matrix": 3, "text": 4}

# Keys and names are matched whole (``fullmatch``: ``$`` alone would let a final newline through)
# and in ASCII only (``\d`` alone would take any script's digits).
# A routed exam record as the notes write it: paper, one space, question number.
ROUTED_KEY = re.compile(r"(?P<paper>[0-9]{4}T[0-9]_[A-Z0-9]+_[A-Z]+) (?P<question>Q[0-9]+)")
# A practice key can never look like a routed one: it starts with "practice/" and is lower-case.
PRACTICE_KEY = re.compile(r"practice/[a-z0-9][a-z0-9_-]{2,63}")
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")

# Names the template language already uses; a parameter may not shadow them.
RESERVED_NAMES = frozenset({"answer", "seed", "key", "True", "False", "None"})


class FieldProblem(ValueError):
    """A ``__post_init__``'s refusal of one of its struct's fields (``at``: the field's path below the
    struct, e.g. ``("variables", "0")``), so that the author is pointed at the field, not the struct."""

    def __init__(self, message: str, *at: str):
        super().__init__(message)
        self.at = at


class _Strict(Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Immutable, no unknown fields.  Each struct says ``kw_only=True`` itself (msgspec does not inherit
    it; a field with a default may then come before a required one, in the order the docs list them)
    and ``frozen=True`` again (which msgspec inherits, but mypy's reading of the class does not)."""


Dim = int | str  # a literal size or an expression over earlier parameters ("T", "d_model // h")


# Sampling bounds stay where floats are exact integers: a 5000-digit bound cannot become a float.
MAX_BOUND = 2**53
# (A bound also refuses infinities; NaN never reaches here: the loader refuses it in the YAML.)
WholeBound = Annotated[int, Meta(ge=-MAX_BOUND, le=MAX_BOUND)]
RealBound = Annotated[float, Meta(ge=-MAX_BOUND, le=MAX_BOUND)]


class ParamSpec(_Strict, kw_only=True, frozen=True):
    """One sampler.  Exactly one of choice / int / float / vector / matrix is given."""

    choice: Annotated[list[Any], Meta(min_length=1, max_length=1000)] | None = None
    int_: tuple[WholeBound, WholeBound] | None = field(default=None, name="int")
    float_: tuple[RealBound, RealBound] | None = field(default=None, name="float")
    vector: Dim | None = None
    matrix: tuple[Dim, Dim] | None = None
    step: Annotated[int, Meta(ge=1, le=MAX_BOUND)] = 1
    decimals: Annotated[int, Meta(ge=0, le=12)] | None = None
    dist: Literal["normal", "uniform", "integers"] = "normal"
    mean: RealBound = 0.0
    std: Annotated[float, Meta(gt=0, le=MAX_BOUND)] = 1.0
    low: RealBound = -1.0
    high: RealBound = 1.0

    def __post_init__(self) -> None:
        """Exactly one sampler, and a range that holds something."""
        given = [name for name in ("choice", "int_", "float_", "vector", "matrix") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of choice, int, float, vector, matrix"
                             + (f" (got {', '.join(g.rstrip('_') for g in given)})" if given else ""))
        for bounds in (self.int_, self.float_):
            if bounds is not None and bounds[0] > bounds[1]:
                raise ValueError(f"range [{bounds[0]}, {bounds[1]}] is empty: the low end is above the high end")
        if self.low >= self.high and self.dist in ("uniform", "integers"):
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")


class Tolerance(_Strict, kw_only=True, frozen=True):
    """Accepted if any given criterion accepts; integers are always exact."""

    rel: Annotated[float, Meta(gt=0, lt=1)] | None = None
    abs: Annotated[float, Meta(gt=0, le=MAX_BOUND)] | None = None
    sig: Annotated[int, Meta(ge=1, le=12)] | None = None


class Choice(_Strict, kw_only=True, frozen=True):
    text: Annotated[str, Meta(min_length=1, max_length=2000)]
    correct: bool = False
    misconception: str | None = None
    feedback: Annotated[str, Meta(max_length=4000)] | None = None

    def __post_init__(self) -> None:
        if self.correct and self.misconception:
            raise ValueError("a correct choice cannot name a misconception")


# A stated reason for an exemption from a check of fair draws: a sentence, not a word.
Reason = Annotated[str, Meta(min_length=20, max_length=500)]
Exemption = Literal["constant_answer", "equal_rows", "constant_column", "fixed_entries", "few_instances"]


class Misconception(_Strict, kw_only=True, frozen=True):
    """A wrong answer computed under one named mistake, with what to tell the student."""

    id: Annotated[str, Meta(min_length=1, max_length=80)]
    answer: str | int | float | bool  # an expression in the template language (typed syntax for kind: expression)
    feedback: Annotated[str, Meta(max_length=4000)] | None = None
    # Why this mistake may earn more than a third of the marks (the question examines only part of the answer):
    # without it, validation refuses a draw on which it does (quizzer.templates.fair_draws).
    keeps_credit: Reason | None = None


Text = Annotated[str, Meta(min_length=1, max_length=20_000)]
Label = Annotated[str, Meta(max_length=200)]
Expression = Annotated[str, Meta(min_length=1, max_length=2000)]
# Row/column/bar labels: a YAML list of texts (placeholders allowed), or one expression giving a list.
Labels = list[Label] | str

FIGURE_KINDS = ("heatmap", "lines", "bars")
# Which fields each figure kind draws; any other kind-specific field given is an error, never ignored.
_FIGURE_FIELDS = {"heatmap": {"data", "mask", "row_labels", "col_labels"},
                  "lines": {"x", "series", "marks", "ylim"}, "bars": {"categories", "series", "ylim"}}
_FIGURE_REQUIRED = {"heatmap": ("data",), "lines": ("x", "series"), "bars": ("categories", "series")}


class FigureSeries(_Strict, kw_only=True, frozen=True):
    """One curve (lines) or one set of bars: values from an expression, named in the legend."""

    y: Expression  # giving a 1-D array
    label: Label = ""


class FigureMark(_Strict, kw_only=True, frozen=True):
    """A labelled vertical reference line on a lines figure (a step, a position, a boundary)."""

    x: str | int | float  # an expression giving one number
    label: Label = ""


class FigureSpec(_Strict, kw_only=True, frozen=True):
    """A picture drawn from computed values: declarative, every value an expression, nothing run."""

    kind: Literal["heatmap", "lines", "bars"]
    where: Literal["prompt", "solution"] = "solution"
    title: Label = ""
    caption: Annotated[str, Meta(max_length=1000)] = ""
    xlabel: Label = ""
    ylabel: Label = ""
    data: Expression | None = None
    mask: Expression | None = None
    row_labels: Labels | None = None
    col_labels: Labels | None = None
    decimals: Annotated[int, Meta(ge=0, le=6)] = 2
    x: Expression | None = None
    categories: Labels | None = None
    series: Annotated[list[FigureSeries], Meta(max_length=8)] = field(default_factory=list)
    marks: Annotated[list[FigureMark], Meta(max_length=8)] = field(default_factory=list)
    ylim: tuple[str | int | float, str | int | float] | None = None

    def __post_init__(self) -> None:
        """The fields its kind draws are given, and no field only another kind draws."""
        for name in _FIGURE_REQUIRED[self.kind]:
            if not getattr(self, name):
                raise ValueError(f"a {self.kind!r} figure needs {name!r}")
        specific = set().union(*_FIGURE_FIELDS.values()) - _FIGURE_FIELDS[self.kind]
        stray = sorted(name for name in specific if getattr(self, name))
        if stray:
            raise ValueError(f"{', '.join(map(repr, stray))} cannot be used in a {self.kind!r} figure")


def _variable_name(name: str) -> str:
    """A student types these names: each must be a plain identifier that means nothing else in
    typed maths or in the template language (a variable 'sqrt' or 'pi' would change what an
    answer means)."""
    if not IDENTIFIER.fullmatch(name):
        raise ValueError(f"{name!r} is not a name: use letters, digits and '_', starting with a letter (at most 40)")
    if name in reserved_variable_names():
        raise ValueError(f"{name!r} is reserved (a keyword, function or constant of the expression language); "
                         "choose another name")
    return name


def _check_entry_credit(kind: str, given_entries: str | None, partial_credit: bool) -> None:
    """``given_entries`` and ``partial_credit`` shape the partial credit of a vector or matrix, and only theirs."""
    for field_name, set_ in (("given_entries", given_entries is not None), ("partial_credit", not partial_credit)):
        if set_ and kind not in ("vector", "matrix"):
            raise FieldProblem(f"{field_name!r} is only for kinds 'vector' and 'matrix', not {kind!r}", field_name)
    if given_entries is not None and not partial_credit:
        raise FieldProblem("'given_entries' says which entries earn no partial credit, and "
                           "'partial_credit: false' gives none: keep one", "given_entries")


class Part(_Strict, kw_only=True, frozen=True):
    """One step of a multi-part (``kind: parts``) question: it asks for one derived value.

    A later part computed from an earlier part's value is graded on the learner's own value
    too (follow-through); ``follow_through`` is the credit that earns (1 = full)."""

    id: str | None = None  # the routed exam record this step is, if any
    prompt: Text
    answer: str  # the name of the derived value this part asks for
    kind: PartKind
    tolerance: Tolerance = field(default_factory=Tolerance)
    given_entries: str | None = None  # as a template's (vector and matrix parts)
    partial_credit: bool = True  # as a template's (vector and matrix parts)
    points: Annotated[float, Meta(gt=0, le=100)] | None = None
    follow_through: Annotated[float, Meta(ge=0, le=1)] = 1.0
    misconceptions: Annotated[list[Misconception], Meta(max_length=20)] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.id is not None and not ROUTED_KEY.fullmatch(self.id):
            raise FieldProblem(f"{self.id!r} is not a routed record ID like '2024T3_Q1_NA Q278'", "id")
        _check_entry_credit(self.kind, self.given_entries, self.partial_credit)

    @property
    def marks(self) -> float:
        return self.points if self.points is not None else DEFAULT_POINTS[self.kind]


class Template(_Strict, kw_only=True, frozen=True):
    key: str
    title: Annotated[str, Meta(min_length=3, max_length=200)]
    week: Annotated[int, Meta(ge=1, le=52)]
    topics: Annotated[list[str], Meta(min_length=1, max_length=8)]
    difficulty: Annotated[int, Meta(ge=1, le=3)]
    source: Annotated[str, Meta(min_length=3, max_length=500)]
    kind: Kind
    params: Annotated[dict[str, ParamSpec], Meta(max_length=40)] = field(default_factory=dict)
    derived: Annotated[dict[str, str | int | float], Meta(max_length=60)] = field(default_factory=dict)
    require: Annotated[list[str], Meta(max_length=20)] = field(default_factory=list)
    canonical: dict[str, Any] | None = None
    prompt: Text
    answer: str | int | float | bool | None = None
    variables: Annotated[list[str], Meta(max_length=10)] = field(default_factory=list)
    tolerance: Tolerance = field(default_factory=Tolerance)
    # kinds 'vector', 'matrix': true for each entry the prompt gives away (a blocked key's weight 0, the BOS
    # id), which earns no partial credit (quizzer.grading.verdict; questions/README.md, Scoring rules).
    given_entries: str | None = None
    # kinds 'vector', 'matrix' with whole-number answers (a mask, token ids): false grades all or nothing, as
    # one wrong entry makes the mask or the sequence wrong.
    partial_credit: bool = True
    choices: Annotated[list[Choice], Meta(min_length=2, max_length=12)] | None = None
    # kind 'order': the steps in their right order (shown shuffled, each with a letter).
    items: Annotated[list[Annotated[str, Meta(min_length=1, max_length=2000)]],
                     Meta(min_length=3, max_length=12)] | None = None
    # kind 'order': the relations the question examines, as pairs [a, b] of step numbers (1-based, as in
    # 'items' and in a misconception's order): an answer that puts step b before step a scores 0, however
    # many other pairs it has right (quizzer.grading.ordering).
    must_precede: Annotated[list[Annotated[list[int], Meta(min_length=2, max_length=2)]],
                            Meta(max_length=20)] = field(default_factory=list)
    shuffle: bool = True
    # The answer does not depend on the numbers drawn (a true/false fact, say): the validator then
    # allows a true/false or choice answer that is the same on every seed.
    conceptual: bool = False
    # Checks of a fair draw (quizzer.templates.fair_draws) the template is exempt from, each with its reason.
    exempt: dict[Exemption, Reason] | None = None
    misconceptions: Annotated[list[Misconception], Meta(max_length=20)] = field(default_factory=list)
    solution: Text
    figure: FigureSpec | None = None
    tags: Annotated[list[Annotated[str, Meta(min_length=1, max_length=40)]], Meta(max_length=20)] = field(
        default_factory=list)
    points: Annotated[float, Meta(gt=0, le=100)] | None = None  # marks (default: by kind, DEFAULT_POINTS)
    # kind 'parts': the steps of one calculation, asked one after another (quizzer.templates.parts).
    parts: Annotated[list[Part], Meta(min_length=2, max_length=8)] | None = None

    def __post_init__(self) -> None:
        """What types cannot say, field by field in the file's order, then across fields."""
        if not (ROUTED_KEY.fullmatch(self.key) or PRACTICE_KEY.fullmatch(self.key)):
            shown = repr(self.key) if len(self.key) <= 100 else f"{self.key[:100]!r}…"
            raise FieldProblem(f"{shown} is neither a routed record ID like '2024T3_Q1_NA Q277' "
                               "nor a practice key like 'practice/sdpa-variance-table'", "key")
        for mapping in ("params", "derived"):
            for name in getattr(self, mapping):
                if not IDENTIFIER.fullmatch(name) or name in RESERVED_NAMES:
                    raise FieldProblem(f"{name!r} cannot be a name: use letters, digits and '_', "
                                       f"start with a letter, and avoid {sorted(RESERVED_NAMES)}", mapping)
        # A derived value named like a parameter would silently replace the parameter a reviewer reads.
        shadowed = sorted(set(self.derived) & set(self.params))
        if shadowed:
            raise FieldProblem(f"{shadowed[0]!r} is both a parameter and a derived value; "
                               "give them different names", "derived")
        for index, name in enumerate(self.variables):
            try:
                _variable_name(name)
            except ValueError as exc:
                raise FieldProblem(str(exc), "variables", str(index)) from None
        twice = sorted({name for name in self.variables if self.variables.count(name) > 1})
        if twice:
            raise FieldProblem(f"{twice[0]!r} is listed twice", "variables")
        self._kind_fields()

    def _kind_fields(self) -> None:
        """The fields its kind asks for are given, and no field another kind asks for."""
        has_choices = self.choices is not None
        if (self.kind == "parts") != (self.parts is not None):
            raise ValueError("kind 'parts' lists its steps under 'parts', and only kind 'parts' has 'parts'")
        if self.kind == "parts":
            self._parts_fields()
            return
        if self.kind in ("choice", "multi"):
            if not has_choices:
                raise ValueError(f"kind {self.kind!r} needs 'choices'")
            n_correct = sum(c.correct for c in self.choices or [])
            if self.kind == "choice" and n_correct != 1:
                raise ValueError(f"kind 'choice' needs exactly one correct choice, found {n_correct}")
            if self.kind == "multi" and n_correct < 1:
                raise ValueError("kind 'multi' needs at least one correct choice")
            if self.answer is not None:
                raise ValueError(f"kind {self.kind!r} marks answers with 'correct: true' in 'choices', not 'answer'")
            if self.misconceptions:
                raise ValueError(f"kind {self.kind!r} attaches misconceptions to choices ('misconception: id')")
        elif self.kind == "order":
            if self.items is None or has_choices or self.answer is not None:
                raise ValueError("kind 'order' lists its steps in their right order under 'items' "
                                 "(no 'answer', no 'choices')")
            if not self.shuffle:
                raise ValueError("kind 'order' always shows its steps shuffled: remove 'shuffle: false'")
            for index, (before, after) in enumerate(self.must_precede):
                if not 1 <= before < after <= len(self.items):
                    raise FieldProblem(f"[{before}, {after}] is not a pair of steps in their right order: give "
                                       f"[a, b] with 1 ≤ a < b ≤ {len(self.items)} (the steps are numbered as "
                                       "listed under 'items', in their right order)", "must_precede", str(index))
                if [before, after] in self.must_precede[:index]:
                    raise FieldProblem(f"[{before}, {after}] is listed twice", "must_precede", str(index))
        else:
            if has_choices:
                raise ValueError(f"'choices' is only for kinds 'choice' and 'multi', not {self.kind!r}")
            if self.answer is None:
                raise ValueError(f"kind {self.kind!r} needs 'answer'")
        if self.kind == "expression" and not isinstance(self.answer, str):
            raise ValueError("kind 'expression' needs 'answer' as an expression in typed syntax, e.g. '4*d^2 + 2*d*f'")
        if self.items is not None and self.kind != "order":
            raise ValueError(f"'items' is only for kind 'order', not {self.kind!r}")
        if self.must_precede and self.kind != "order":
            raise FieldProblem(f"'must_precede' is only for kind 'order', not {self.kind!r}", "must_precede")
        _check_entry_credit(self.kind, self.given_entries, self.partial_credit)
        if self.variables and self.kind != "expression":
            raise ValueError("'variables' is only for kind 'expression'")
        if self.kind == "text" and self.misconceptions:
            raise ValueError("kind 'text' is self-graded and cannot have misconceptions")
        if self.canonical:
            unknown = sorted(set(self.canonical) - set(self.params))
            if unknown:
                raise ValueError(f"canonical values for unknown params: {', '.join(unknown)}")

    def _parts_fields(self) -> None:
        """A multi-part question asks everything in its parts: nothing answered at the top level."""
        stray = [name for name in ("answer", "choices", "items", "points", "given_entries")
                 if getattr(self, name) is not None]
        stray += [name for name in ("misconceptions", "variables") if getattr(self, name)]
        if self.tolerance != Tolerance():  # each part grades with its own: one given here would be ignored
            stray.append("tolerance")
        if not self.partial_credit:
            stray.append("partial_credit")
        if stray:
            raise ValueError(f"kind 'parts' gives {', '.join(map(repr, stray))} in each part, not at the top level")
        # The first part may carry the template's own routed key: a chain keyed by its first record.
        ids = [self.key, *(part.id for i, part in enumerate(self.parts or ())
                           if part.id and (i or part.id != self.key))]
        twice = sorted({key for key in ids if ids.count(key) > 1})
        if twice:
            raise ValueError(f"{twice[0]!r} names two steps: each routed ID belongs to one question or part "
                             "(only the first part may carry the question's own key)")
        for i, part in enumerate(self.parts or ()):
            if part.answer not in self.derived:
                raise FieldProblem(f"{part.answer!r} is not a derived value (a part names the derived value it "
                                   f"asks for{did_you_mean(part.answer, self.derived)}; derived: "
                                   f"{', '.join(self.derived) or 'none'})", "parts", str(i), "answer")

    @property
    def answered_kind(self) -> str:
        """The kind each attempt at this question answers (mastery's guess rate): a multi-part question's
        attempts answer its parts, all typed answers (PART_KINDS), as hard to guess as each other."""
        return self.parts[0].kind if self.parts else self.kind

    @property
    def routed_parts(self) -> dict[str, int]:
        """The routed IDs this question's parts carry besides its own key -> the part's index (none for
        a single question)."""
        return {part.id: i for i, part in enumerate(self.parts or ()) if part.id and part.id != self.key}

    @property
    def part_ids(self) -> tuple[str, ...]:
        """The routed IDs this question's parts carry besides its own key (none for a single question)."""
        return tuple(self.routed_parts)

    @property
    def routed_ids(self) -> tuple[str, ...]:
        """The routed exam questions it asks: its key if routed, then its parts' routed IDs (a chain
        asks several of a paper's questions on one screen)."""
        return ((self.key,) if self.is_routed else ()) + self.part_ids

    @property
    def option_count(self) -> int | None:
        """How many options (choice, multi) or steps (order) a learner picks from; None for other kinds."""
        return len(self.choices or self.items or ()) or None

    @property
    def marks(self) -> float:
        """What the question is worth: its ``points:``, else the default for its kind."""
        if self.parts:
            return sum(part.marks for part in self.parts)
        return self.points if self.points is not None else DEFAULT_POINTS[self.kind]

    @property
    def paper(self) -> str | None:
        """The paper of its routed key, or of its parts' routed IDs (a chain is one paper's questions)."""
        match = ROUTED_KEY.fullmatch(self.key) or next(
            (m for m in map(ROUTED_KEY.fullmatch, self.part_ids) if m), None)
        return match.group("paper") if match else None

    @property
    def is_routed(self) -> bool:
        """Whether its key is a routed record ID (its parts may carry more: ``part_ids``)."""
        return ROUTED_KEY.fullmatch(self.key) is not None


@functools.cache
def reserved_variable_names() -> frozenset[str]:
    """What an expression question's variable may not be called: Python's keywords, the names
    templates reserve, the constants (pi, e, inf) and every function of typed maths (with 'ln',
    which typed maths reads as log) and of the template language."""
    # Imported here: the whitelists pull in NumPy and the engine, which loading a template does not need.
    from quizzer.grading.expr import MATH_CONSTANTS
    from quizzer.grading.typed import FUNCTIONS
    from quizzer.templates.functions import template_functions

    return frozenset({*keyword.kwlist, *keyword.softkwlist, *RESERVED_NAMES, *MATH_CONSTANTS, *FUNCTIONS, "ln",
                      *template_functions()})
