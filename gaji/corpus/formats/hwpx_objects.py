"""HWPX objects that hold text outside text runs: 덧말 (ruby, ``hp:dutmal``) and 글맵시 (text art, ``hp:textart``).

syhwp reads a paragraph's text from its ``hp:t`` runs only. A 덧말 keeps its text in ``hp:mainText`` /
``hp:subText`` and a 글맵시 in its ``text`` attribute, so both came out empty. `with_object_text` rewrites
each such object as a text run in place, in reading order:

- 덧말: "본말(덧말)" (the annotation in brackets after the text it annotates, as Korean documents write it
  when ruby cannot be shown); just "본말" when the annotation is empty;
- 글맵시: its text, line breaks as spaces, set off by spaces from the text around it.

Only sections that hold such objects are rewritten; the others are passed on unchanged.
"""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

__all__ = ["with_object_text", "has_object_text", "dutmal_text", "textart_text"]

_SECTION_RE = re.compile(r"(?:^|/)section\d+\.xml$", re.IGNORECASE)
_MARKERS = (b"dutmal", b"textart")
_LINE_BREAKS_RE = re.compile("[\r\n\u240d\u240a]+")


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text_of(el: ET.Element, name: str) -> str:
    for child in el:
        if _local(child.tag) == name:
            return " ".join("".join(child.itertext()).split())
    return ""


def dutmal_text(el: ET.Element) -> str:
    """"본말(덧말)" for one ``hp:dutmal`` element."""
    main, sub = _text_of(el, "mainText"), _text_of(el, "subText")
    return f"{main}({sub})" if main and sub else main or sub


def textart_text(el: ET.Element) -> str:
    """The text of one ``hp:textart`` element (its ``text`` attribute), on one line."""
    return " ".join(_LINE_BREAKS_RE.sub(" ", el.get("text") or "").split())


def _rewrite(root: ET.Element) -> int:
    """Replace every 덧말 / 글맵시 under `root` by a text run; how many were replaced."""
    n = 0
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            kind = _local(child.tag)
            if kind not in ("dutmal", "textart"):
                continue
            text = dutmal_text(child) if kind == "dutmal" else textart_text(child)
            ns = child.tag[: -len(kind)]  # "{namespace}" or ""
            run = ET.Element(ns + "t")
            run.text = text if kind == "dutmal" else f" {text} "
            run.tail = child.tail
            parent.remove(child)
            parent.insert(i, run)
            n += 1
    return n


def has_object_text(path: Path) -> bool:
    """Whether any section of the HWPX file mentions a 덧말 or 글맵시 (a cheap check before rewriting).
    False for a damaged zip: the reader then names the damage."""
    try:
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if _SECTION_RE.search(name) and any(m in z.read(name) for m in _MARKERS):
                    return True
    except (zipfile.BadZipFile, OSError, EOFError):
        return False
    return False


def with_object_text(path: Path) -> io.BytesIO:
    """The HWPX package with its 덧말 and 글맵시 turned into text runs, as an in-memory zip.

    A section that is not well-formed XML is passed on as it is (the reader decides what to do with it).
    """
    out = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if _SECTION_RE.search(info.filename) and any(m in data for m in _MARKERS):
                try:
                    root = ET.fromstring(data)
                except ET.ParseError:
                    pass
                else:
                    if _rewrite(root):
                        data = ET.tostring(root, encoding="utf-8")
            dst.writestr(info, data)
    out.seek(0)
    return out
