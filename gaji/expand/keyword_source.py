"""Where a query's keywords come from at search time: a callable given by the caller, or the trained keyword
tagger (gaji/expand/tagger.py) in the folder `tagger=DIR` or $GAJI_TAGGER names, loaded once per folder.

    fn = keyword_fn(tagger="runs/tagger")      # query -> keywords
    fn("송파구 대기오염경보의 대상 오염물질은?")   # -> ["송파구", "대기오염경보", "대상 오염물질"]

The keyword retrievers (gaji/retrieve/keyword_boost.py, keyword_filter.py) and `gaji expand chunk-keywords`
use it.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from gaji.errors import ConfigError

__all__ = ["keyword_fn", "load_tagger_cached"]

_TAGGERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def load_tagger_cached(path: str):
    with _LOCK:
        if path not in _TAGGERS:
            from .tagger import KeywordTagger

            _TAGGERS[path] = KeywordTagger.load(path)
        return _TAGGERS[path]


def keyword_fn(tagger: Any, given: Callable[[str], list[str]] | None = None) -> Callable[[str], list[str]]:
    """`given` when there is one, else the keywords of the tagger in `tagger` (or $GAJI_TAGGER)."""
    if given is not None:
        return given
    path = tagger or os.environ.get("GAJI_TAGGER")
    if not path:
        raise ConfigError("bm25+kw / hybrid+kw need a keyword tagger: tagger=DIR (from `gaji expand train-tagger`) "
                          "or $GAJI_TAGGER")
    t = load_tagger_cached(str(path))
    return t.keywords
