"""What a chat client shows: the answer's text with `[n]` markers, a short sources block, and OpenAI
`url_citation` annotations pointing at gaji's passage pages.

One function, `render`, makes the text both `/v1` paths send, so a streamed answer and a plain one read
the same. It starts with the text the method wrote (its last draft, as it was streamed), so a stream only
has to append what follows it; a draft that does not hold the final answer was replaced, and the text starts
with the answer instead (a stream sends it as a revision):

    <the method's text> [1][2]

    **답:** <the short answer>            (when the text is a sentence that holds it)
    근거: <the supporting sentence>        (when the text does not already say it)

    **출처**                              (the labels are the message table's reply.*, in the answer's language)
    [1] [안전점검_보고서.pdf, 3쪽 · 2. 점검 결과](http://host/passage/…)

Each `[n]` marker carries an annotation (chat completions' shape, which Open WebUI's middleware reads:
`{"type": "url_citation", "url_citation": {"url", "title", "start_index", "end_index"}}`, indexes counted
in characters of `content`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from gaji.message_table import TABLE
from gaji.messages import LANGS, text
from gaji.text.normalize import squash
from gaji.types import Location

def _words(lang: str) -> dict[str, str]:
    """The labels of a reply in `lang` (the answer's language picks it), from the message table."""
    return {k: text(f"reply.{k}", lang) for k in ("answer", "because", "sources")}


@dataclass
class Source:
    """One cited passage as a reader sees it: its number, a human label and the page that shows it."""

    n: int
    label: str
    url: str = ""
    passage_id: str = ""


@dataclass
class Rendered:
    content: str
    annotations: list[dict[str, Any]] = field(default_factory=list)


def place_label(loc: Location | None, title: str, lang: str) -> str:
    """"안전점검_보고서.pdf, 3쪽 · 2. 점검 결과", "slides.pptx, slide 4", "budget.xlsx, Sheet1 row 12";
    the title alone for a passage with no place (a JSONL corpus)."""
    if loc is None or not loc.file:
        return title or "?"
    where = []
    if loc.page is not None:
        where.append(text("loc.page", lang, n=loc.page))
    if loc.slide is not None:
        where.append(text("loc.slide", lang, n=loc.slide))
    if loc.sheet or loc.rows:
        rows = ""
        if loc.rows:
            a, b = loc.rows[0], loc.rows[-1]
            rows = text("loc.row", lang, n=a) if a == b else text("loc.rows", lang, a=a, b=b)
        where.append(" ".join(x for x in (loc.sheet or "", rows) if x))
    label = loc.file.rsplit("/", 1)[-1] + (", " + ", ".join(where) if where else "")
    if loc.section:
        label += " · " + " › ".join(loc.section)
    return label


def sources_of(citations: list[dict[str, Any]], lang: str, link: Callable[[str], str] | None) -> list[Source]:
    """The answer's cited passages (the /api/ask body's `citations`), numbered, labelled and linked."""
    out = []
    for n, c in enumerate(citations, 1):
        label = place_label(Location.from_dict(c.get("location")), c.get("title") or c.get("doc_id", ""), lang)
        out.append(Source(n, label, link(c["id"]) if link else "", c["id"]))
    return out


def render(lead: str, answer: str, explanation: str, sources: list[Source], lang: str,
           sources_block: bool = True) -> Rendered:
    """The content a chat client shows (see the module docstring); `lead` is the method's own text (its
    last streamed draft), else the answer."""
    w = _words(lang)
    if lead and answer.strip() and squash(answer) not in squash(lead):
        # a draft that does not hold the answer was replaced by it (auto's first answer, overruled by the values
        # compared item by item or by a bridge's second hop): shown, it would contradict the answer under it
        lead = ""
    lead = lead or answer  # as streamed, trailing spaces included: the stream only appends to it
    content = lead
    annotations: list[dict[str, Any]] = []
    if sources and not lead[-1:].isspace():
        content += " "
    for s in sources:
        start = len(content)
        content += f"[{s.n}]"
        if s.url:
            annotations.append({"type": "url_citation", "url_citation": {
                "url": s.url, "title": s.label, "start_index": start, "end_index": len(content)}})
    said = squash(lead)
    if answer.strip() and squash(answer) != said:  # the text is a sentence (or a draft): the short answer apart
        content += f"\n\n**{w['answer']}:** {answer.strip()}"
    if explanation and squash(explanation) not in said and squash(explanation) != squash(answer):
        content += f"\n\n{w['because']}: {explanation.strip()}"
    if sources and sources_block:
        lines = [f"[{s.n}] [{_md(s.label)}]({s.url})" if s.url else f"[{s.n}] {s.label}" for s in sources]
        content += f"\n\n**{w['sources']}**\n" + "\n".join(lines)
    return Rendered(content, annotations)


def _md(text: str) -> str:
    """A label safe inside a markdown link's text."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _either(key: str) -> str:
    """A regular expression for the label `key` in either language (a reply sent back may be in either)."""
    return "(?:" + "|".join(re.escape(TABLE[key][i]) for i in range(len(LANGS))) + ")"


_BLOCK = re.compile(r"\n\n\*\*" + _either("reply.sources") + r"\*\*\n.*\Z", re.S)
_ANSWER_LINE = re.compile(r"\n\n\*\*" + _either("reply.answer") + r":\*\* (.+?)(?:\n|\Z)")
_BECAUSE = re.compile(r"\n\n" + _either("reply.because") + r": .*?(?=\n\n|\Z)", re.S)
_MARKERS = re.compile(r"\s*(?:\[\d+\])+\s*$")


def answer_of_shown(text: str, revised: str = "") -> str:
    """The short answer inside a text `render` made (a chat client sends earlier replies back as history):
    the answer line when there is one, else the text without its markers and sources; a text gaji did not
    make comes back as it is. `revised`: the marker a stream puts before a new draft (the last one counts)."""
    if revised and revised in text:
        text = text.split(revised)[-1]
    text = _BLOCK.sub("", text)
    line = _ANSWER_LINE.search(text)
    if line:
        return line.group(1).strip()
    text = _BECAUSE.sub("", text)
    return _MARKERS.sub("", text).strip()
