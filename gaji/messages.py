"""The user-facing strings, Korean and English, in one table: the page, the CLI and the server render from it.

    text("read.hwp_password", "ko")                   # '암호가 걸린 한글(HWP) 문서입니다. …'
    text("docs.chunks", "en", n=3)                    # parameters fill {name} slots
    m = Msg("read.empty"); str(m)                     # a message kept for later: English when printed,
    m.text("ko")                                      # Korean when the reader is Korean
    lang_of("ko_KR.UTF-8") == "ko"; env_lang()        # a language from a locale / request / the environment

Ids are dotted: ``page.*`` the web page's labels, ``upload.*``, ``conv.*`` and ``docs.*`` its panels,
``method.<name>`` / ``method.<name>.help`` the methods, ``option.<name>`` their options, ``score.<name>``
the scores a node shows, ``status.*`` run and node states, ``read.*`` why a file is refused, ``error.*``
the errors the CLI and the server say. The table itself is `gaji.message_table`; this module is the API.
"""
from __future__ import annotations

import os
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gaji.message_table import TABLE

__all__ = ["LANGS", "Msg", "text", "has", "lang_of", "env_lang", "catalogue", "error_text", "method_title",
           "method_help", "option_label", "TABLE"]

LANGS = ("ko", "en")
_FORMATTER = string.Formatter()


def lang_of(value: str | None, default: str = "en") -> str:
    """"ko" or "en" from a language tag or locale ("ko", "ko-KR", "ko_KR.UTF-8", "en_US"); else `default`."""
    v = (value or "").strip().lower().replace("-", "_")
    if v.startswith("ko"):
        return "ko"
    if v.startswith("en") or v in ("c", "posix", "c.utf_8"):
        return "en"
    return default


def env_lang(environ: Mapping[str, str] | None = None, default: str = "en") -> str:
    """The language a terminal user reads: GAJI_LANG, else the locale (LC_ALL, LC_MESSAGES, LANG), as POSIX
    orders them; a Korean locale gives "ko"."""
    env = os.environ if environ is None else environ
    for key in ("GAJI_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if value:
            return lang_of(value, default)
    return default


def has(msg_id: str) -> bool:
    return msg_id in TABLE


def text(msg_id: str, lang: str | None = "en", **params: Any) -> str:
    """The message `msg_id` in `lang` ("ko" / "en"; anything else reads as English) with its slots filled.

    An unknown id or a missing parameter is a programming error (KeyError naming it)."""
    entry = TABLE.get(msg_id)
    if entry is None:
        raise KeyError(f"no message {msg_id!r} in gaji.message_table")
    template = entry[0] if lang_of(lang) == "ko" else entry[1]
    params = {k: v.text(lang) if isinstance(v, Msg) else v for k, v in params.items()}
    try:
        return template.format(**params)
    except KeyError as e:
        raise KeyError(f"message {msg_id!r} needs the parameter {e.args[0]!r}") from None


def slots(msg_id: str) -> set[str]:
    """The parameter names a message takes (the same in both languages: a test checks it)."""
    ko, en = TABLE[msg_id]
    return {f for _, f, _, _ in _FORMATTER.parse(ko) if f} | {f for _, f, _, _ in _FORMATTER.parse(en) if f}


@dataclass(frozen=True)
class Msg:
    """A message to be rendered later, in the reader's language; printed, it is English (so code that
    only knows strings keeps working)."""

    id: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str | None = "en") -> str:
        return text(self.id, lang, **self.params)

    def __str__(self) -> str:
        return self.text("en")

    def to_dict(self) -> dict[str, Any]:
        """JSON: {"id", "params"}; a parameter that is a message itself is such a dict too."""
        return {"id": self.id, "params": {k: v.to_dict() if isinstance(v, Msg) else
                                          v if isinstance(v, (int, float, str)) else str(v)
                                          for k, v in self.params.items()}}

    @classmethod
    def from_dict(cls, d: Any) -> "Msg | None":
        """The message a `to_dict` wrote; None for anything else (an unknown id among them)."""
        if not isinstance(d, dict) or not isinstance(d.get("id"), str) or d["id"] not in TABLE:
            return None
        raw = d.get("params") if isinstance(d.get("params"), dict) else {}
        params = {k: cls.from_dict(v) if isinstance(v, dict) else v for k, v in raw.items()}
        if any(v is None for v in params.values()) or not slots(d["id"]) <= set(params):
            return None
        return cls(d["id"], params)


def message_of(exc: BaseException) -> Msg | None:
    """The `Msg` an error carries: its `msg` attribute, or its first argument."""
    m = getattr(exc, "msg", None)
    if isinstance(m, Msg):
        return m
    if exc.args and isinstance(exc.args[0], Msg):
        return exc.args[0]
    return None


def error_text(exc: BaseException, lang: str | None = "en") -> str:
    """What an error says to a reader of `lang`: its message from the table when it carries one (with the
    file/line/field it names), else its own text."""
    m = message_of(exc)
    if m is None:
        return str(exc)
    where = getattr(exc, "where", "") or ""
    return where + m.text(lang)


def catalogue(lang: str | None) -> dict[str, str]:
    """Every message in `lang`, slots unfilled (the web page fills them itself)."""
    i = 0 if lang_of(lang) == "ko" else 1
    return {k: v[i] for k, v in TABLE.items()}


def method_title(name: str, lang: str | None = "en") -> str:
    """A method's (or recipe's) name for people: "한 번 검색" for oner; the id itself when the table has none."""
    return text(f"method.{name}", lang) if f"method.{name}" in TABLE else name


def method_help(name: str, lang: str | None = "en", fallback: str = "") -> str:
    key = f"method.{name}.help"
    return text(key, lang) if key in TABLE else fallback


def option_label(name: str, lang: str | None = "en") -> str:
    """An option's label for people ("검색할 문서 수" for k); the option's name when the table has none."""
    return text(f"option.{name}", lang) if f"option.{name}" in TABLE else name
