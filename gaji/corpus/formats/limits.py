"""How much one document file may cost to read, and the refusal a reader gives when a file asks for more.

    limits = ReadLimits()                                   # the defaults below
    limits = ReadLimits.from_options({"expanded_mb": "50"})  # config `read_limits`, env GAJI_READ_LIMITS
    raise LimitExceeded(Refusal("expanded", limit=mb(limits.max_expanded_bytes)))

The checks that need no library run before a reader opens the file (gaji.corpus.formats.guards: zip headers,
XML structure, HWP streams, HTML nesting); wall time and memory are enforced on the worker process that
reads untrusted files (gaji.corpus.formats.worker). A refusal is an `Unreadable` whose `refusal` says which
limit was hit with its figures, so it can be told in English or Korean (`Refusal.text(lang)`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from gaji.errors import ConfigError

from .base import Unreadable

__all__ = ["ReadLimits", "Refusal", "LimitExceeded", "MESSAGES", "default_limits", "human_size"]

MB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """Bounds on reading one file. Sizes are bytes; "per part" is one member of an archive (a sheet, the
    document body) or the whole file for formats that are not archives."""

    max_file_bytes: int = 200 * MB  # the file as stored
    max_expanded_bytes: int = 200 * MB  # all members of an archive together, decompressed
    max_member_bytes: int = 100 * MB  # one member (or one compressed HWP stream), decompressed
    max_ratio: float = 200.0  # decompressed / compressed size of one member over 1 MiB (text XML is ~10-30)
    max_members: int = 10_000  # entries in an archive
    max_rows: int = 200_000  # rows of one sheet
    max_cells: int = 2_000_000  # cells of one sheet
    max_chars: int = 50_000_000  # characters of text in one part
    max_depth: int = 512  # nesting of XML elements / HTML tags
    max_seconds: float = 30.0  # wall time for one file (the worker is killed after it)
    max_memory_bytes: int = 1024 * MB  # address space of the worker process (RLIMIT_AS)

    # option name (config, env) -> (field, unit factor, allowed range in option units)
    OPTIONS = {
        "file_mb": ("max_file_bytes", MB, (0.001, 100_000)),
        "expanded_mb": ("max_expanded_bytes", MB, (0.001, 100_000)),
        "member_mb": ("max_member_bytes", MB, (0.001, 100_000)),
        "ratio": ("max_ratio", 1, (2, 1_000_000)),
        "members": ("max_members", 1, (1, 10_000_000)),
        "rows": ("max_rows", 1, (1, 100_000_000)),
        "cells": ("max_cells", 1, (1, 1_000_000_000)),
        "chars": ("max_chars", 1, (1, 10_000_000_000)),
        "depth": ("max_depth", 1, (8, 100_000)),
        "seconds": ("max_seconds", 1, (0.1, 86_400)),
        "memory_mb": ("max_memory_bytes", MB, (128, 1_000_000)),
    }

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None, source: str = "read_limits") -> "ReadLimits":
        """Limits from `{"expanded_mb": "50", "seconds": "10"}` (config `read_limits`, env GAJI_READ_LIMITS);
        an unknown name or a value out of range is a ConfigError naming it and the allowed range."""
        changes: dict[str, Any] = {}
        for name, raw in (options or {}).items():
            key = str(name).strip().replace("-", "_")
            if key not in cls.OPTIONS:
                raise ConfigError(f"{source}: unknown read limit {name!r}; known: {', '.join(cls.OPTIONS)}")
            fname, factor, (low, high) = cls.OPTIONS[key]
            try:
                value = float(raw)
            except (TypeError, ValueError):
                raise ConfigError(f"{source}: read limit {name!r} must be a number, not {raw!r}") from None
            if not low <= value <= high:  # NaN fails too
                raise ConfigError(f"{source}: read limit {name!r} must be between {low:g} and {high:g}, not {raw!r}")
            is_int = isinstance(getattr(cls, fname), int)
            changes[fname] = int(value * factor) if is_int else value * factor
        return dataclasses.replace(cls(), **changes)


def default_limits() -> ReadLimits:
    """The limits the settings give (config file `read_limits`, env GAJI_READ_LIMITS="expanded_mb=50;seconds=10")."""
    from gaji.config import load_settings

    return ReadLimits.from_options(load_settings().read_limits)


def human_size(n: float) -> str:
    """200 MB, 1.5 GB, 640 KB (powers of 1024, as the limits are set)."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{int(n)} bytes" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024
    return str(n)


# Every refusal a limit gives, in English and Korean: one place, so a shared message table can take them over.
MESSAGES: dict[str, dict[str, str]] = {
    "file": {"en": "is {size}, more than the {limit} a document file may be",
             "ko": "파일 크기가 {size}로 문서 한 개의 한도 {limit}보다 큽니다"},
    "expanded": {"en": "expands to more than {limit}",
                 "ko": "압축을 풀면 {limit}보다 커집니다"},
    "member": {"en": "{part} expands to more than {limit}",
               "ko": "{part}의 압축을 풀면 {limit}보다 커집니다"},
    "ratio": {"en": "{part} is compressed {ratio}:1, more than the {limit}:1 a document may be (a zip bomb?)",
              "ko": "{part}의 압축률이 {ratio}:1로 한도 {limit}:1을 넘습니다 (압축 폭탄일 수 있습니다)"},
    "members": {"en": "holds more than {limit} archive members",
                "ko": "압축 파일 안에 든 항목이 {limit}개를 넘습니다"},
    "rows": {"en": "{part} has more than {limit} rows",
             "ko": "{part}의 행이 {limit}개를 넘습니다"},
    "cells": {"en": "{part} has more than {limit} cells",
              "ko": "{part}의 셀이 {limit}개를 넘습니다"},
    "chars": {"en": "{part} holds more than {limit} characters of text",
              "ko": "{part}의 글자가 {limit}자를 넘습니다"},
    "depth": {"en": "{part} nests its tags more than {limit} deep",
              "ko": "{part}의 태그가 {limit}단계보다 깊게 중첩되어 있습니다"},
    "entities": {"en": "{part} declares XML entities, which documents of this kind never do (an entity-expansion bomb?)",
                 "ko": "{part}에 이런 문서에는 없는 XML 엔티티 선언이 있습니다 (엔티티 확장 폭탄일 수 있습니다)"},
    "broken_xml": {"en": "broken XML in {part} (line {line}, column {column}: {detail})",
                   "ko": "{part}의 XML이 깨져 있습니다 ({line}행 {column}열: {detail})"},
    "time": {"en": "took longer than {limit} s to read, so reading was stopped",
             "ko": "읽는 데 {limit}초보다 오래 걸려 중단했습니다"},
    "memory": {"en": "needs more than {limit} of memory to read, so reading was stopped",
               "ko": "읽는 데 메모리가 {limit}보다 많이 필요해 중단했습니다"},
    "truncated": {"en": "is cut short: its part {part} holds {got} of its {size} bytes (an incomplete download or copy?)",
                  "ko": "파일이 중간에 잘렸습니다: {part} 부분이 {size}바이트 중 {got}바이트만 있습니다 (내려받기나 복사가 덜 끝났나요?)"},
    "crashed": {"en": "the reader process stopped unexpectedly ({detail})",
                "ko": "문서를 읽던 프로세스가 예기치 않게 멈췄습니다 ({detail})"},
}


@dataclass(frozen=True)
class Refusal:
    """Which limit a file hit, with the figures to tell it (`MESSAGES[key]` filled from `params`)."""

    key: str
    params: dict[str, str] = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        table = MESSAGES[self.key]
        return table.get(lang, table["en"]).format(**self.params)


class LimitExceeded(Unreadable):
    """A file refused for a limit (or for broken XML); str() is the English text, `refusal` the rest."""

    def __init__(self, key: str, **params: Any):
        self.refusal = Refusal(key, {k: str(v) for k, v in params.items()})
        super().__init__(self.refusal.text("en"))

    def __reduce__(self):  # crosses the worker's pipe with its refusal
        return (_rebuild, (self.refusal,))


def _rebuild(refusal: Refusal) -> LimitExceeded:
    return LimitExceeded(refusal.key, **refusal.params)
