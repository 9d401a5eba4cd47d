"""A small, bounded expression language shared by templates and typed answers.

It stays one module, longer than the rest, because it is the security boundary and is
reviewed as a whole: the parser's whitelist of syntax, the evaluator, and the size guards each
operator runs before it computes (the last part, which returns the work the evaluator charges)
are one contract; split along those seams, a guard could drift from the operator it bounds
unseen by the reviewer of either half.

Templates compute their answers with expressions such as
``decoder_layer_params(d_model, d_ff) * n_layers`` and students type answers such
as ``sqrt(3/2)``.  Both are evaluated here, never by Python's ``eval``.

What the language has: numbers, strings, ``True``/``False``, list literals (lists
of numbers become NumPy arrays), arithmetic (``+ - * / // % ** @``), comparisons,
``and``/``or``/``not``, ``a if cond else b``, indexing and slicing, and calls to
the functions a caller passes in (templates get the engine plus a short maths
whitelist).  What it does not have: attribute access, names starting with ``_``,
lambdas, comprehensions, assignment, imports, keyword splats — the parser rejects
every node type not listed in ``_ALLOWED_NODES``.

Bounds: source length, nesting depth, and the size of integers, strings and lists here; steps,
work inside calls (charged before each call by the function's cost rule, see :class:`Costed`),
array elements (every result checked *before* it is allocated, integer-array indexing included)
and a deadline in :mod:`quizzer.grading.budget`, shared by every evaluation of one template
instance or typed answer.  Every failure is an :class:`ExprError` with one readable line.
"""

from __future__ import annotations

import ast
import contextvars
import functools
import io
import math
import operator
import tokenize
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

import msgspec
import numpy as np

from quizzer.common.errors import did_you_mean
from quizzer.grading import budget as _budget
from quizzer.grading.budget import (
    MAX_ARRAY_ELEMENTS,
    MAX_TOTAL_ELEMENTS,
    Budget,
    BudgetError,
    Costed,
)

MAX_SOURCE_CHARS = 4000
MAX_DEPTH = 40  # brackets
MAX_TREE_DEPTH = 200  # syntax-tree levels: evaluation recurses once per level
MAX_INT_BITS = 4096  # ~1233 decimal digits: far beyond any parameter count
MAX_STRING_CHARS = 100_000


class ExprError(ValueError):
    """An expression that cannot be read or evaluated; the message is user-facing."""


_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword, ast.List, ast.Tuple,
    ast.Subscript, ast.Slice,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult,
    ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
)

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_NODE_NAMES = {ast.Attribute: "attribute access ('.')", ast.Lambda: "lambda",
               ast.ListComp: "comprehensions", ast.GeneratorExp: "comprehensions",
               ast.DictComp: "comprehensions", ast.SetComp: "comprehensions",
               ast.NamedExpr: "assignment (':=')", ast.Starred: "'*' unpacking",
               ast.Dict: "dict literals", ast.Set: "set literals",
               ast.JoinedStr: "f-strings", ast.Await: "await", ast.Yield: "yield"}


class Compiled(msgspec.Struct, frozen=True):
    """A parsed and checked expression, turned into nested closures: parse once, evaluate often."""

    source: str
    tree: ast.Expression
    names: frozenset[str]
    run: Callable[[Scope], Any]
    # Set when the whole expression is one name ({{ d_model }}, most placeholders): evaluate() looks it up
    # directly, since a name costs no step and builds nothing, and the scope and errstate cost more than it.
    variable: str | None = None


@functools.lru_cache(maxsize=8192)
def compile_expr(source: str) -> Compiled:
    """Parse ``source`` and reject anything outside the language (cached: templates repeat)."""
    if not isinstance(source, str):
        raise ExprError(f"expected an expression as text, got {type(source).__name__}")
    if len(source) > MAX_SOURCE_CHARS:
        raise ExprError(f"expression is {len(source)} characters long; the limit is {MAX_SOURCE_CHARS}")
    if _bracket_depth(source) > MAX_DEPTH:
        raise ExprError(f"expression nests deeper than {MAX_DEPTH} levels")
    try:
        # Expressions may span lines in YAML (folded text); Python needs them on one line.
        one_line = " ".join(source.split()) if "\n" in source else source.strip()
        tree = ast.parse(_raw_strings(one_line), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse {source.strip()!r}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError(f"cannot parse {source.strip()[:60]!r}") from None
    nodes = list(ast.walk(tree))
    for node in nodes:  # name the forbidden construct itself (a lambda), not its use (a call)
        if not isinstance(node, _ALLOWED_NODES):
            raise ExprError(f"{_NODE_NAMES.get(type(node), type(node).__name__)} is not allowed in expressions")
    for node in nodes:
        _check_node(node)
    if _tree_depth(tree) > MAX_TREE_DEPTH:
        raise ExprError(f"expression is too long: more than {MAX_TREE_DEPTH} operations in a chain")
    names = frozenset(node.id for node in nodes if isinstance(node, ast.Name))
    variable = tree.body.id if isinstance(tree.body, ast.Name) else None
    return Compiled(source, tree, names, _build(tree.body), variable)


def _tree_depth(tree: ast.AST) -> int:
    """How deeply the syntax tree nests (`1+1+…+1` nests once per `+`), without recursing."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _raw_strings(line: str) -> str:
    """Make every string literal raw, so LaTeX such as '\\frac' keeps its backslash ('\\f' is no escape)."""
    if "\\" not in line:
        return line  # nothing a raw string changes (most expressions): no tokenizing, 2 ms a process
    try:
        starts = [tok.start[1] for tok in tokenize.generate_tokens(io.StringIO(line).readline)
                  if tok.type == tokenize.STRING and tok.string[0] in "'\""]
    except (tokenize.TokenError, SyntaxError):
        return line  # let the parser report the problem
    for column in reversed(starts):
        line = line[:column] + "r" + line[column:]
    return line


def _bracket_depth(source: str) -> int:
    depth = deepest = 0
    for ch in source:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest


def _check_node(node: ast.AST) -> None:
    if isinstance(node, ast.Name) and node.id.startswith("_"):
        raise ExprError(f"name {node.id!r} is not allowed (names may not start with '_')")
    if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
        raise ExprError("only named functions can be called")
    if isinstance(node, ast.keyword) and (node.arg is None or node.arg.startswith("_")):
        raise ExprError("'**' arguments and private keywords are not allowed")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool, type(None))):
        raise ExprError(f"constant {node.value!r} is not allowed")


def evaluate(
    source: str | Compiled,
    names: Mapping[str, Any] | None = None,
    functions: Mapping[str, Callable[..., Any] | Costed] | None = None,
) -> Any:
    """Evaluate an expression with the given variables and callable whitelist."""
    compiled = source if isinstance(source, Compiled) else compile_expr(source)
    return Scope(names or {}, functions or {}).evaluate(compiled)


_NUMPY_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("quizzer_numpy_quiet", default=False)


class numpy_quiet:  # lower case: used like a function, ``with numpy_quiet():``
    """NumPy's overflow and division warnings off for every evaluation inside: they would print past
    the one-line error, and an infinite or NaN result is refused by whoever asked for a finite value,
    with its own message.  An instance enters it once for its few dozen evaluations: entering it
    costs more than evaluating most expressions (a class, since a generator-based context manager
    would cost twice as much again)."""

    __slots__ = ("errstate", "token")

    def __enter__(self) -> None:
        self.token = _NUMPY_QUIET.set(True)
        self.errstate = np.errstate(all="ignore")
        self.errstate.__enter__()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        try:
            self.errstate.__exit__(kind, error, trace)
        finally:
            _NUMPY_QUIET.reset(self.token)


def _describe(exc: Exception) -> str:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return message[:200]


class Scope:
    """What evaluations see (variables, functions) and spend from (the instance's or their own budget).

    ``evaluate()`` makes one per call; a template instance makes one for all its expressions, since
    setting one up costs more than evaluating most of them."""

    __slots__ = ("names", "functions", "budget")

    def __init__(self, names: Mapping[str, Any], functions: Mapping[str, Callable[..., Any] | Costed],
                 budget: Budget | None = None):
        self.names = names
        self.functions = functions
        self.budget = budget or _budget.current() or Budget()

    def evaluate(self, compiled: Compiled) -> Any:
        """The value of ``compiled`` here; every failure an :class:`ExprError` in one readable line."""
        if compiled.variable is not None and compiled.variable in self.names:
            return self.names[compiled.variable]
        try:
            if _NUMPY_QUIET.get():
                return compiled.run(self)
            with numpy_quiet():
                return compiled.run(self)
        except ExprError:
            raise
        except BudgetError as exc:
            raise ExprError(str(exc)) from None
        except ZeroDivisionError:
            raise ExprError("division by zero") from None
        except OverflowError:
            raise ExprError("a number is too large") from None
        except RecursionError:
            raise ExprError(f"expression nests deeper than {MAX_DEPTH} levels") from None
        except MemoryError:
            raise ExprError("expression needs too much memory") from None
        except (TypeError, ValueError, IndexError, KeyError, ArithmeticError) as exc:
            raise ExprError(_describe(exc)) from None

    def keep(self, value: Any) -> Any:
        """Check one computed value's size, and count its elements against the budget."""
        if type(value) in _FIXED_SIZE:  # most values: a number, nothing to check or count
            return value
        bounded(value)
        if type(value) in _UNCOUNTED:  # a whole number or a piece of text
            return value
        if isinstance(value, np.ndarray):
            self.budget.elements += value.size
            if self.budget.elements > MAX_TOTAL_ELEMENTS:
                raise ExprError(f"more than {MAX_TOTAL_ELEMENTS:,} array elements built in all")
        elif isinstance(value, list):
            self.budget.charge(len(value))  # bounded() looked at every item
        return value


Closure = Callable[[Scope], Any]


def _build(node: ast.expr) -> Closure:
    """Turn one checked AST node into a closure.

    The language has no loops, so evaluation work is bounded by the source size; only calls and
    arithmetic (the steps that can be expensive on arrays) spend from the step and time budget."""
    return _BUILDERS[type(node)](node)


def _constant(node: ast.Constant) -> Closure:
    value = node.value

    def run(scope: Scope) -> Any:
        return value
    return run


def _name(node: ast.Name) -> Closure:
    name = node.id

    def run(scope: Scope) -> Any:
        try:
            return scope.names[name]
        except KeyError:
            if name in scope.functions:
                raise ExprError(f"{name!r} is a function; call it as {name}(...)") from None
            raise ExprError(f"unknown name {name!r}{did_you_mean(name, [*scope.names, *scope.functions])}") from None
    return run


def _binary(node: ast.BinOp) -> Closure:
    left, right, op = _build(node.left), _build(node.right), _BINARY[type(node.op)]
    guard = _GUARDS.get(type(node.op), _check_arithmetic)
    # Most operations are on two plain numbers (d_model * d_ff, a typed d^2): their guard would charge
    # what it charges any two numbers, a float result needs no size check, and the step needs no look at
    # the clock (Budget.tick).  A power of two whole numbers is left to its guard, which bounds the result
    # before it is computed.
    plain = _FRACTIONAL_POWERS if isinstance(node.op, ast.Pow) else _PLAIN_PAIRS
    numbers_work = guard(1.0, 1.0)
    # Most operands are names (d_model * d_ff): looked up here, not through their closure (a call each).
    # "" is never a name, so the closure answers for every other operand, and for a name not defined.
    left_name = node.left.id if isinstance(node.left, ast.Name) else ""
    right_name = node.right.id if isinstance(node.right, ast.Name) else ""

    def run(scope: Scope) -> Any:
        names = scope.names
        a = names[left_name] if left_name in names else left(scope)
        b = names[right_name] if right_name in names else right(scope)
        if (type(a), type(b)) in plain:
            scope.budget.tick(numbers_work)
            result = op(a, b)
            return result if type(result) is float else scope.keep(result)
        scope.budget.step(guard(a, b))
        return scope.keep(op(a, b))
    return run


def _unary(node: ast.UnaryOp) -> Closure:
    operand, op = _build(node.operand), _UNARY[type(node.op)]

    def run(scope: Scope) -> Any:
        return op(operand(scope))
    return run


def _boolean(node: ast.BoolOp) -> Closure:
    operands, stop_when = [_build(v) for v in node.values], isinstance(node.op, ast.Or)

    def run(scope: Scope) -> Any:
        value: Any = None
        for operand in operands:
            value = operand(scope)
            # Short-circuit exactly like Python: `and` stops at a falsy value, `or` at a truthy one.
            if _truth(value) is stop_when:
                return value
        return value
    return run


def _compare(node: ast.Compare) -> Closure:
    first = _build(node.left)
    rest = [(_COMPARE[type(op)], _build(c)) for op, c in zip(node.ops, node.comparators, strict=True)]

    if len(rest) == 1:  # a single comparison may be element-wise: where(scores == max(scores), ...)
        (op, comparator), = rest

        def elementwise(scope: Scope) -> Any:
            a, b = first(scope), comparator(scope)
            scope.budget.charge(check_broadcast(a, b) + weight(a) + weight(b))
            return scope.keep(op(a, b))
        return elementwise

    def run(scope: Scope) -> Any:
        left = first(scope)
        for op, comparator in rest:
            right = comparator(scope)
            scope.budget.charge(weight(left) + weight(right))
            if not _truth(op(left, right)):
                return False
            left = right
        return True
    return run


def _conditional(node: ast.IfExp) -> Closure:
    test, body, orelse = _build(node.test), _build(node.body), _build(node.orelse)

    def run(scope: Scope) -> Any:
        return body(scope) if _truth(test(scope)) else orelse(scope)
    return run


def _call(node: ast.Call) -> Closure:
    assert isinstance(node.func, ast.Name)  # guaranteed by _check_node
    name = node.func.id
    args = [_build(a) for a in node.args]
    kwargs = [(kw.arg, _build(kw.value)) for kw in node.keywords if kw.arg]
    # A call of one name (the commonest) looks it up directly; "" is never a name.
    single_name = node.args[0].id if len(node.args) == 1 and isinstance(node.args[0], ast.Name) else ""

    def run(scope: Scope) -> Any:
        function = scope.functions.get(name)
        if function is None:
            raise ExprError(f"unknown function {name!r}{did_you_mean(name, scope.functions)}")
        # mha_params(d_model), tex(x): no closure call, no list built by a loop
        values = [scope.names[single_name]] if single_name in scope.names else [arg(scope) for arg in args]
        keywords = {key: value(scope) for key, value in kwargs} if kwargs else {}
        try:
            if isinstance(function, Costed):  # charged before it runs, from its arguments' sizes
                scope.budget.step(*function.cost(*values, **keywords))
                return scope.keep(function.function(*values, **keywords))
            scope.budget.step()
            return scope.keep(function(*values, **keywords))
        except (ExprError, BudgetError, MemoryError, RecursionError):
            raise  # already readable, or reported by evaluate() in its own words
        except Exception as exc:  # noqa: BLE001
            # Any argument a YAML file can write reaches the function (an int where a dict belongs
            # gives AttributeError; PyTorch reports bad shapes as RuntimeError): all are bad input.
            raise ExprError(f"{name}(): {_describe(exc)}") from None
    return run


def _sequence(node: ast.List | ast.Tuple) -> Closure:
    items = [_build(item) for item in node.elts]

    def run(scope: Scope) -> Any:
        return scope.keep(_as_array_if_numeric([item(scope) for item in items]))
    return run


def _subscript(node: ast.Subscript) -> Closure:
    value, index = _build(node.value), _index(node.slice)

    def run(scope: Scope) -> Any:
        container, at = value(scope), index(scope)
        if isinstance(container, np.ndarray) and (size := _indexed_size(container.shape, at)):
            scope.budget.charge(size, size)  # integer-array indexing builds a new array: bound it first
            return scope.keep(container[at])
        return container[at]
    return run


def _indexed_size(shape: tuple[int, ...], index: Any) -> int:
    """How many elements ``array[index]`` has at most: 0 for basic indexing (a view of the array,
    never larger); for integer-array indexing the index arrays' broadcast shape times the axes
    they leave (``zeros(1000)[zeros(1000, 1000)]`` would be a million elements from a thousand)."""
    items = index if isinstance(index, tuple) else (index,)
    arrays = [item.shape for item in items if isinstance(item, np.ndarray)]
    if not arrays:
        return 0
    try:
        size = math.prod(np.broadcast_shapes(*arrays))
    except ValueError:
        return 0  # index arrays that do not fit: NumPy refuses them before allocating
    for axis, item in enumerate(items[:len(shape)]):
        if isinstance(item, slice):
            size *= shape[axis]
    return size * math.prod(shape[len(items):])


def _index(node: ast.expr) -> Closure:
    """An index inside [...]: a number or name, a slice, or a tuple of them."""
    if isinstance(node, ast.Slice):
        parts = [None if part is None else _build(part) for part in (node.lower, node.upper, node.step)]
        return lambda scope: slice(*(None if part is None else part(scope) for part in parts))
    if isinstance(node, ast.Tuple):
        items = [_index(item) for item in node.elts]
        return lambda scope: tuple(item(scope) for item in items)
    value = _build(node)
    return lambda scope: _as_index(value(scope))


def _bare_slice(node: ast.Slice) -> Closure:
    raise ExprError("a slice can only appear inside [...]")


_BUILDERS: dict[type[ast.AST], Callable[[Any], Closure]] = {
    ast.Constant: _constant, ast.Name: _name, ast.BinOp: _binary, ast.UnaryOp: _unary,
    ast.BoolOp: _boolean, ast.Compare: _compare, ast.IfExp: _conditional, ast.Call: _call,
    ast.List: _sequence, ast.Tuple: _sequence, ast.Subscript: _subscript, ast.Slice: _bare_slice,
}


def _truth(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise ExprError("a condition on a whole array is ambiguous; use all(...) or any(...)")
        return bool(value.reshape(()))
    return bool(value)


def _as_index(value: Any) -> Any:
    if isinstance(value, str):
        return value  # a key of a mapping the engine returned, e.g. attention_shapes(...)["A"]
    if isinstance(value, (bool, np.bool_)):
        raise ExprError("an index must be a whole number")
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value
    raise ExprError(f"an index must be a whole number or a name in quotes, got {value!r}"[:120])


def _as_array_if_numeric(items: list[Any]) -> Any:
    numeric = (int, float, np.integer, np.floating, np.ndarray)
    if items and all(isinstance(item, numeric) and not isinstance(item, (bool, np.bool_)) for item in items):
        try:
            return np.array(items, dtype=float)
        except ValueError:
            raise ExprError("rows of a matrix must all have the same length") from None
    return items


# The guards below run before an operator computes: each refuses a result over the element limit and
# returns the element operations the operator will do, which the evaluator charges to the budget.

def _check_power(base: Any, exponent: Any) -> int:
    whole = isinstance(base, int) and isinstance(exponent, int) and not isinstance(base, bool)
    # The result has floor(exponent·log2|base|) + 1 bits: the same limit as any other way of building it
    # ((2**2000)*(2**2000) is allowed, so 2**4000 is too), checked before Python computes it.
    if whole and exponent > 0 and abs(base) > 1 and exponent * math.log2(abs(base)) >= MAX_INT_BITS:
        raise ExprError(f"{str(base)[:20]}**{str(exponent)[:20]} is too large (limit {MAX_INT_BITS} bits)")
    return check_broadcast(base, exponent)


def _check_repeat(left: Any, right: Any) -> int:
    # `"ab" * n` and `[..] * n` repeat sequences; bound the result before Python builds it.
    for seq, count in ((left, right), (right, left)):
        if isinstance(seq, (str, list)) and isinstance(count, int):
            if len(seq) * max(count, 0) > MAX_STRING_CHARS:
                raise ExprError("repeated sequence would be too long")
            return len(seq) * max(count, 0)
    return check_broadcast(left, right)


def _check_modulo(left: Any, right: Any) -> int:
    # `"%999999999d" % 1` would build a gigabyte of spaces before any size check could see it.
    if isinstance(left, str):
        raise ExprError("'%' formatting of text is not allowed")
    return check_broadcast(left, right)


def check_broadcast(*operands: Any) -> int:
    """Refuse element-wise work whose broadcast result exceeds the element limit, before NumPy
    builds it: a (1000000, 1) and a (1, 1000) array are small, their sum is not.  Returns the
    result's size (the work of computing it)."""
    for operand in operands:  # a loop, not any(<generator>): this runs at almost every step
        if isinstance(operand, np.ndarray):
            break
    else:
        return 1  # numbers, text and lists cannot grow this way; bounded() checks them
    try:
        shape = np.broadcast_shapes(*(np.shape(x) for x in operands))
    except ValueError:
        return 1  # shapes that do not fit: NumPy refuses them itself, before allocating
    return check_allocation(*shape)


def _check_matmul(left: Any, right: Any) -> int:
    """``a @ b`` yields [..., n, k] @ [..., k, m] → [..., n, m]; bound that before multiplying.
    Each result element is a k-term dot product."""
    a, b = np.shape(left), np.shape(right)
    try:
        batch = np.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        return 1  # NumPy refuses mismatched batches itself
    return check_allocation(*batch, *a[-2:-1], *b[-1:] if len(b) > 1 else ()) * (a[-1] if a else 1)


def _check_arithmetic(left: Any, right: Any) -> int:
    """+, -, /, //: element-wise on arrays; on text and lists `+` copies both (bounded() checks the result)."""
    return check_broadcast(left, right) + weight(left) + weight(right)


# The exact types of most intermediates that hold one value of a fixed size (a Python int can grow, so
# it is not one): bounded() and weight() run at nearly every step, and a set lookup is cheaper than isinstance.
_FIXED_SIZE = frozenset({float, bool, type(None), np.float64, np.int64, np.bool_})
# Pairs of operand types that _binary() charges without calling their guard.
# NumPy's scalars (what an engine function or an array's entry gives) hold one number of a fixed size as well.
_NUMBERS = (int, float, np.float64, np.int64)
_PLAIN_PAIRS = frozenset((a, b) for a in _NUMBERS for b in _NUMBERS)
_FRACTIONAL_POWERS = _PLAIN_PAIRS - {(int, int)}
# Values that hold no array elements and no list items, which keep() would count.
_UNCOUNTED = _FIXED_SIZE | {int, str}


def weight(value: Any) -> int:
    """How many elements, characters or items a value holds, for cost rules: cheap, never a long walk
    (lists are flat and bounded; tuples come only from functions, a few items long)."""
    kind = type(value)
    if kind in _FIXED_SIZE or kind is int:
        return 1
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, (str, list)):
        return len(value)
    if isinstance(value, tuple):
        return sum(weight(item) for item in value)
    return 1


_GUARDS: dict[type[ast.operator], Callable[[Any, Any], int]] = {
    ast.Pow: _check_power, ast.Mult: _check_repeat, ast.Mod: _check_modulo, ast.MatMult: _check_matmul,
}


def bounded(value: Any) -> Any:
    """Reject a value that exceeds the size limits (used on every intermediate)."""
    # The commonest kinds first, each returning once checked: this runs on every intermediate.
    kind = type(value)
    if kind in _FIXED_SIZE:
        return value
    if isinstance(value, int):  # a bool has a fixed size: it returned above
        if value.bit_length() > MAX_INT_BITS:
            raise ExprError(f"a whole number is too large (limit {MAX_INT_BITS} bits)")
        return value
    if kind is str and len(value) <= MAX_STRING_CHARS:  # the text of every formatter
        return value
    if isinstance(value, np.ndarray):
        if value.size > MAX_ARRAY_ELEMENTS:
            raise ExprError(f"an array of {value.size} elements is too large (limit {MAX_ARRAY_ELEMENTS})")
        return value
    if isinstance(value, complex):
        raise ExprError("the result is not a real number")
    if isinstance(value, (str, list)) and len(value) > MAX_STRING_CHARS:
        raise ExprError("a string or list is too long")
    if isinstance(value, list) and value:
        _check_flat(value)
    return value


# What a list may hold (lists of numbers become arrays): a list of lists or arrays could hold far more
# than it seems ([row] * 1000 is a thousand references), and the cost rules weigh a list by its length.
_LIST_ITEMS = (int, float, str, bool, type(None), np.number, np.bool_)


def _check_flat(items: list[Any]) -> None:
    kinds = set(map(type, items))
    if not all(issubclass(kind, _LIST_ITEMS) for kind in kinds):
        raise ExprError("a list may hold only numbers, text and true/false, not lists, arrays or mappings")
    if str in kinds and sum(len(item) for item in items if type(item) is str) > MAX_STRING_CHARS:
        raise ExprError("the text in a list is too long")


def check_allocation(*dims: Any) -> int:
    """Refuse an array whose requested shape exceeds the element limit, before allocating; returns its size."""
    total = 1
    for dim in dims:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 0:
            raise ExprError(f"array dimensions must be whole numbers ≥ 0, got {dim!r}")
        total *= int(dim)
        if total > MAX_ARRAY_ELEMENTS:
            raise ExprError(f"an array of shape {tuple(int(d) for d in dims)} is too large "
                            f"(limit {MAX_ARRAY_ELEMENTS} elements)")
    return total


MATH_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf}
