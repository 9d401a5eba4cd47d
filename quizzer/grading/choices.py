"""Read choice and multi answers: letters, option texts, positions, or option values.

Options are matched ignoring case, spacing and how the maths was typed.  Letters always
pick options by position; when the options are numbers (``0.250``, ``$k = 3$``), a typed
number picks the option with that value (``0.25``, ``3``, ``3.0``, ``k = 3``), never a
position.  Option texts may contain commas and brackets, so a multi answer is split only
where the pieces still name options.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Sequence

from quizzer.common.untrusted import DEFAULT_IGNORABLE, visible_key
from quizzer.grading.describe import option_letter
from quizzer.grading.readers import as_float, read_real, split_at_depth_zero, strip_outer
from quizzer.grading.typed import AnswerFormatError, clean, normalize, quote

_LETTER = re.compile(r"[(\[]?([a-zA-Z])[)\].:]?")
_LETTER_AND_TEXT = re.compile(r"[(\[]?([a-zA-Z])[)\].:]\s+(.+)", re.DOTALL)
_NONE = {"none", "nothing", "no option", "no options"}
_ALL = {"all", "all of them", "all of these", "every option", "all options"}


_NAMED_VALUE = re.compile(r"[A-Za-z][\w\\{}]*\s*=\s*(?P<value>.+)", re.DOTALL)  # "k = 3", "d_{k} = 64"


_ONE_MATH_SPAN = re.compile(r"\$\$?([^$]+)\$\$?")


def _bare(text: str) -> str:
    """An option or typed answer that is one maths span, without its dollars: ``$k = 3$`` → ``k = 3``."""
    text = text.strip()
    span = _ONE_MATH_SPAN.fullmatch(text)
    return span[1].strip() if span else text


@functools.lru_cache(maxsize=4096)
def _option_key(text: str) -> str:
    """Compare option texts ignoring case, spacing, maths dollars, how the maths was typed and what cannot be
    seen (NFKC, invisible characters).  Kept per text (a pure function of it, which evaluates nothing and so
    spends no budget): an instance's options are keyed again by ``look_alike`` and for every answer typed, and
    most options' texts are the same on every seed (normalizing prose was a quarter of ``quizzer validate``)."""
    text = _bare(DEFAULT_IGNORABLE.sub("", text))
    with contextlib.suppress(AnswerFormatError):  # an unreadable option is compared as typed
        text = normalize(clean(text))
    return visible_key(text)


def look_alike(options: Sequence[str]) -> tuple[int, int] | None:
    """The positions of two options a learner cannot tell apart by typing what they read (the same key),
    or None: typing the second would pick the first."""
    keys = [_option_key(option) for option in options]
    for later, key in enumerate(keys):
        if key in keys[:later]:
            return keys.index(key), later
    return None


def _numeric(text: str) -> float | None:
    """The number an option or a typed answer stands for: ``0.25``, ``$k = 3$`` and ``k = 3.0`` all do."""
    bare = _bare(text)
    named = _NAMED_VALUE.fullmatch(bare)
    try:
        return as_float(read_real(named["value"] if named else bare))
    except AnswerFormatError:
        return None


@functools.lru_cache(maxsize=4096)
def _option_value(option: str) -> float | None:
    """``_numeric`` of an option's text, kept per text as ``_prepared`` keeps whole option lists: options whose
    numbers change with the seed change the list, while most of its texts (prose, read in vain as a number at
    a few milliseconds each) stay the same."""
    return _numeric(option)


@functools.lru_cache(maxsize=512)
def _prepared(options: tuple[str, ...]) -> _Choices:
    """Options are prepared once per question, not once per typed answer."""
    return _Choices(options)


class _Choices:
    """The displayed options, prepared once for matching typed text against them."""

    def __init__(self, options: Sequence[str]) -> None:
        if not options:
            raise ValueError("a choice question needs options")
        self.options = tuple(options)
        self.keys = [_option_key(option) for option in options]
        self.values = [_option_value(option) for option in options]
        # Letters name options unless the options are themselves single letters (shape symbols, say).
        self.by_letter = len(options) <= 26 and not any(_LETTER.fullmatch(option.strip()) for option in options)
        # How many typed comma/semicolon pieces one option's own text may span.
        self.span = 1 + max(len(re.findall(r"[,;]", option)) for option in options)

    def choose_message(self) -> str:
        last = len(self.options) - 1
        return f"choose one of a–{option_letter(last)}" if last else "choose a"

    def mismatch(self, typed: str) -> str:
        """Why ``typed`` matches no option."""
        with_text = _LETTER_AND_TEXT.fullmatch(typed)
        index = ord(with_text[1].lower()) - ord("a") if with_text and self.by_letter else -1
        if 0 <= index < len(self.options):
            return f"({option_letter(index)}) is {quote(self.options[index])}: type just the letter"
        return f"could not match {quote(typed)} to an option: {self.choose_message()}"

    def match(self, typed: str) -> int | None:
        """One option typed as a letter, its text, ``(b) its text`` or a number; None if none matches."""
        letter = _LETTER.fullmatch(typed)
        if letter and self.by_letter:
            return self.letter_index(letter[1])
        key = _option_key(typed)
        if key in self.keys:
            return self.keys.index(key)
        with_text = _LETTER_AND_TEXT.fullmatch(typed)
        if with_text and self.by_letter:  # "(b) 0.25", as the preview shows it
            index = ord(with_text[1].lower()) - ord("a")
            consistent = index < len(self.options) and _option_key(with_text[2]) == self.keys[index]
            return index if consistent else None
        return self.match_number(typed)

    def letter_index(self, letter: str) -> int:
        index = ord(letter.lower()) - ord("a")
        if index >= len(self.options):
            raise AnswerFormatError(self.choose_message())
        return index

    def match_number(self, typed: str) -> int | None:
        """Numeric options compare by value (0.25 = 0.250); otherwise a number is the option's position."""
        if any(value is not None for value in self.values):
            value = _numeric(typed)
            for index, option_value in enumerate(self.values):
                if value is not None and option_value is not None and math.isclose(
                        value, option_value, rel_tol=1e-9, abs_tol=1e-12):
                    return index
            return None
        if re.fullmatch(r"[0-9]{1,3}", typed):
            position = int(typed)
            if not 1 <= position <= len(self.options):
                raise AnswerFormatError(self.choose_message())
            return position - 1
        return None


def parse_choice(text: str, options: Sequence[str]) -> int:
    """The 0-based index of the chosen option: a letter ``b``/``(b)``/``b)``, its text, or its number."""
    choices = _prepared(tuple(options))
    typed = clean(text)
    index = choices.match(typed)
    if index is None:
        raise AnswerFormatError(choices.mismatch(typed))
    return index


def parse_multi(text: str, options: Sequence[str]) -> frozenset[int]:
    """The set of chosen indices: ``a, c``, ``ac``, ``A C``, ``(a) (c)``, ``a and c``, ``{a,c}``, option texts,
    none or all."""
    choices = _prepared(tuple(options))
    typed = clean(text)
    key = _option_key(typed)
    if key in choices.keys:  # one option, whose text may contain commas or brackets
        return frozenset({choices.keys.index(key)})
    inner = strip_outer(typed)
    if inner.casefold() in _NONE:
        return frozenset()
    if inner.casefold() in _ALL:  # what ticking every box gives (an option whose text it is matched above)
        return frozenset(range(len(options)))
    letters = _run_of_letters(inner, choices)
    if letters is not None:
        return letters
    # Semicolons are the stronger separator: with one present, commas belong to option texts.
    separator = ";" if len(split_at_depth_zero(inner, ";")) > 1 else ","
    chosen = _match_pieces(split_at_depth_zero(inner, separator), separator, choices)
    if not chosen:
        raise AnswerFormatError(f"no options chosen: {choices.choose_message()}")
    return frozenset(chosen)


def _run_of_letters(inner: str, choices: _Choices) -> frozenset[int] | None:
    """Read ``ac``, ``A C``, ``a, c``, ``a and c`` as letters, when every letter names an option."""
    if not choices.by_letter:
        return None
    words = [word for word in re.split(r"[\s,;&]+|\band\b|(?<=[)\]])(?=[(\[])", inner) if word]  # (a)(c) too
    # each word a run of letters ("ac") or one letter as the options show it ("(a)", "c)")
    letters = [one[1] if (one := _LETTER.fullmatch(word)) else word for word in words]
    if not letters or not all(word.isascii() and word.isalpha() for word in letters):
        return None
    indices = {ord(letter) - ord("a") for letter in "".join(letters).lower()}
    if max(indices) < len(choices.options):
        return frozenset(indices)
    if all(len(letter) == 1 for letter in letters):  # letters, one of them past the last option
        raise AnswerFormatError(f"there is no option ({option_letter(max(indices))}): {choices.choose_message()}")
    return None


def _match_pieces(pieces: list[str], separator: str, choices: _Choices) -> set[int]:
    """Match separated pieces to options, rejoining neighbours when an option's text has the separator."""
    chosen: set[int] = set()
    start = 0
    while start < len(pieces):
        if not pieces[start].strip():
            start += 1
            continue
        for end in range(start + 1, min(len(pieces), start + choices.span) + 1):
            found = _match_piece(separator.join(pieces[start:end]).strip(), choices)
            if found is not None:
                chosen |= found
                start = end
                break
        else:
            raise AnswerFormatError(choices.mismatch(pieces[start].strip()))
    return chosen


def _match_piece(piece: str, choices: _Choices) -> set[int] | None:
    """One option, or several joined by 'and'/'&'; None when that does not match."""
    index = choices.match(piece)
    if index is not None:
        return {index}
    words = [word.strip() for word in re.split(r"\s+and\s+|\s*&\s*", piece) if word.strip()]
    matched = [choices.match(word) for word in words] if len(words) > 1 else [None]
    return None if None in matched else {index for index in matched if index is not None}
