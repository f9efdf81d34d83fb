"""Flag types that refuse what would go wrong: a number outside its range is an argparse error naming the
flag and the allowed range (exit 2), never a traceback and never silently changed (a negative queue
becoming 0, a negative limit meaning "all", a timeout of -5 s answering every question with 504).

    p.add_argument("--port", type=PORT, default=8000)
    p.add_argument("--limit", type=count(1), help="first N questions only")
    p.add_argument("--timeout", type=seconds(), default=300.0)
"""
from __future__ import annotations

import argparse
import math
from typing import Callable

MAX_COUNT = 10**9


def _bounds(lo: float, hi: float) -> str:
    return f"at least {lo:g}" if hi >= MAX_COUNT else f"between {lo:g} and {hi:g}"


def count(lo: int = 0, hi: int = MAX_COUNT) -> Callable[[str], int]:
    """A whole number in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            v = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ({_bounds(lo, hi)})") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{v} is out of range: must be {_bounds(lo, hi)}")
        return v

    parse.__name__ = "count"  # argparse names the type in its own messages
    return parse


def number(lo: float, hi: float, unit: str = "") -> Callable[[str], float]:
    """A finite number in [lo, hi] (`unit` for the message: "s", "MiB")."""
    u = f" {unit}" if unit else ""

    def parse(text: str) -> float:
        try:
            v = float(text.strip())
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and lo <= v <= hi):
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: must be a number {_bounds(lo, hi)}{u}")
        return v

    parse.__name__ = "number"
    return parse


def seconds(lo: float = 0.1, hi: float = 86_400.0) -> Callable[[str], float]:
    return number(lo, hi, "s")


PORT = count(1, 65_535)
