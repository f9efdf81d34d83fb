"""Reading option values given as text (flags, environment, config files) as typed values: one set of rules for
method options, retriever options and settings."""
from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

from gaji.errors import ConfigError

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def parse_bool(text: str) -> bool:
    """1/true/yes/on or 0/false/no/off, any case; anything else raises ValueError."""
    v = text.strip().lower()
    if v in TRUE:
        return True
    if v in FALSE:
        return False
    raise ValueError(text)


def parse_pairs(items: Iterable[str]) -> dict[str, str]:
    """["key=value", ...] -> {key: value}, both stripped; an item without "=" raises ValueError(item)."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(item)
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def coerce(value: Any, ty: Any, what: str) -> Any:
    """A string from a flag, the environment or a file, read as type `ty` (bool, int, float, list[...], Optional);
    a value that is already typed (JSON from the HTTP API, a config file) must fit `ty`. A bad value is a
    ConfigError starting with `what`."""
    if not isinstance(value, str):
        return _typed(value, ty, what)
    origin = typing.get_origin(ty)
    args = typing.get_args(ty)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        non_none = [a for a in args if a is not type(None)]
        if value.lower() in ("none", "null", ""):
            return None
        ty = non_none[0] if non_none else str
    try:
        if ty is bool:
            return parse_bool(value)
        if ty is int:
            return int(value)
        if ty is float:
            return float(value)
        if typing.get_origin(ty) is list or ty is list:
            inner = (typing.get_args(ty) or (str,))[0]
            return [coerce(x.strip(), inner, what) for x in value.split(",") if x.strip()]
        return value
    except ValueError:
        raise ConfigError(f"{what}: cannot read {value!r} as {getattr(ty, '__name__', ty)}") from None


def _typed(value: Any, ty: Any, what: str) -> Any:
    """A non-string value checked against `ty`: ints for int (a whole float such as 5.0 or 1e9 becomes an int;
    bool is not an int), numbers for float, bools for bool, lists item by item. Types this does not know pass."""
    origin, args = typing.get_origin(ty), typing.get_args(ty)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None and type(None) in args:
            return None
        errors = []
        for a in (a for a in args if a is not type(None)):
            try:
                return _typed(value, a, what)
            except ConfigError as e:
                errors.append(e)
        if errors:
            raise errors[0]
        return value

    def bad() -> ConfigError:
        return ConfigError(f"{what}: cannot read {value!r} as {getattr(ty, '__name__', ty)}")

    if ty is bool:
        if not isinstance(value, bool):
            raise bad()
    elif ty is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad()
    elif ty is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad()
        return float(value)
    elif ty is str:
        if not isinstance(value, str):
            raise bad()
    elif origin is list or ty is list:
        if not isinstance(value, (list, tuple)):
            raise bad()
        inner = (args or (str,))[0]
        return [coerce(x, inner, what) for x in value]
    return value



# -- allowed ranges --------------------------------------------------------------------------------
# The bounds of numeric options, by name: an option means the same wherever it appears (a method's options, a
# retriever's, the settings), so one table serves them all. Every entry point checks here: Method.__init__ (method
# options however they were made: -o flags, /api/ask and /v1 JSON, the Python API, GAJI_K), the retriever and
# settings parsers, and `gaji index search -k`. The upper bounds keep one question's work finite: a huge k, depth
# or step count would run for hours or exhaust memory instead of failing. A method whose own meaning of a name
# differs (0 = "the default") widens the range in its `option_ranges`.
MAX_K = 100  # passages per search: more than any prompt holds (a 8k-token context fits ~20 passages)
MAX_DEPTH = 8  # levels of a question tree below its root
MAX_STEPS = 50  # iterations / reasoning steps / chain links / follow-ups of one question
MAX_BRANCH = 20  # sub-questions (or list items) one node splits into
MAX_NODES = 500  # nodes of one question tree
MAX_TOKENS = 32_768  # one generation's token budget, and a prompt's context budget is at most 4x that
MAX_CHARS = 1_000_000  # characters of one passage shown in a prompt
MAX_WORDS = 5_000  # words of a long-form answer or summary

Range = tuple[float, float]
OPTION_RANGES: dict[str, Range] = {
    "k": (1, MAX_K), "node_k": (1, MAX_K), "long_passages": (1, MAX_K), "max_paragraphs": (1, MAX_K * MAX_STEPS),
    "max_depth": (0, MAX_DEPTH),
    "max_steps": (1, MAX_STEPS), "iterations": (1, MAX_STEPS), "max_length": (1, MAX_STEPS),
    "max_followups": (0, MAX_STEPS), "max_calls": (0, MAX_STEPS * 4),
    "max_children": (1, MAX_BRANCH), "max_items": (1, MAX_BRANCH), "max_subquestions": (1, MAX_BRANCH),
    "max_nodes": (1, MAX_NODES),
    "max_tokens": (1, MAX_TOKENS), "step_tokens": (1, MAX_TOKENS), "answer_tokens": (1, MAX_TOKENS),
    "subq_tokens": (1, MAX_TOKENS), "reader_tokens": (1, MAX_TOKENS),
    "context_tokens": (0, MAX_TOKENS * 4), "context_budget": (1, MAX_TOKENS * 4),
    "passage_chars": (1, MAX_CHARS), "passage_chars_ko": (0, MAX_CHARS), "doc_chars": (1, MAX_CHARS),
    "words": (1, MAX_WORDS), "summary_words": (1, MAX_WORDS), "answer_words": (1, MAX_WORDS),
    "m": (0, MAX_BRANCH), "max_demos": (0, MAX_K),
    "threshold": (0.0, 1.0), "temperature": (0.0, 2.0),
}


def _num(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def check_range(name: str, value: Any, what: str, ranges: dict[str, Range] | None = None) -> Any:
    """`value` when option `name` has no bound or lies inside it, else a ConfigError starting with `what` and
    naming the allowed range. `ranges` overrides OPTION_RANGES for some names."""
    bound = (ranges or {}).get(name) or OPTION_RANGES.get(name)
    if bound is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    low, high = bound
    if not low <= value <= high:  # NaN fails too
        raise ConfigError(f"{what} must be between {_num(low)} and {_num(high)}, not {_num(value)}")
    return value
