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

