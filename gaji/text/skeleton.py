"""A question's skeleton: its names masked as "X", its structure kept.

    "Who was born first, Park Chan-wook or Bong Joon-ho?"  -> "Who was born first, X or X?"
    "박찬욱과 봉준호 중 누가 먼저 태어났나요?"                -> "X과 X 중 누가 먼저 태어났나요?"

The decomposer's shape router (gaji/methods/toq/router.py) embeds the skeleton instead of the
question: an embedding of the whole question is dominated by what it is about (people, films,
places), the skeleton by how it asks (two names joined by "or" / "중", "both", "the same"), which is
what tells a comparison from a chain. Measured on the router's held-out questions: 100 % vs 93.2 %,
and the question view missed hand-written comparisons in both languages (benchmarks/toq/NOTES.md).

Names are found per language. English: runs of words with a capital letter or a digit (joined
through "of", "the", "de", ...), except a first word that is an ordinary word ("Who", "The").
Korean: Kiwi's proper-noun, foreign-letter, number and hanja morphemes (NNP, SL, SN, SH), joined
over spaces; without Kiwi, Latin letters and digits only. Either way a quoted title ("…", 『…』,
「…」, “…”) is one name.
"""
from __future__ import annotations

import re

from gaji.text.answers import strip_ko_ending
from gaji.text.analyzers import STOPWORDS
from gaji.text.lang import detect_lang

MASK = "X"
_QUOTED = re.compile(r'"[^"\n]{1,80}"|“[^”\n]{1,80}”|『[^』\n]{1,80}』|「[^」\n]{1,80}」|《[^》\n]{1,80}》')
_TOKEN = re.compile(r"\S+")
_EDGE = re.compile(r"^([(\[\"'“‘]*)(.*?)([)\]\"'”’,.;:?!]*)$")
_CONNECTORS = frozenset({"of", "the", "de", "del", "du", "von", "van", "der", "la", "le", "di", "da", "y", "&"})
_KIWI_NAME_TAGS = frozenset({"NNP", "SL", "SN", "SH"})
_KO_KIND_NAME = re.compile(r"(?:^|\s)(?:영화|드라마|소설|앨범|노래|곡|가수|그룹|밴드|책|시집|작품|회사|기업|게임|프로그램)\s+([가-힣A-Za-z0-9]{2,})")


def skeleton(question: str, lang: str | None = None) -> str:
    """The question with its names (and quoted titles) replaced by "X"; `lang` None = detect it."""
    text = _QUOTED.sub(MASK, question.strip())
    if (lang or detect_lang(text)) == "ko":
        spans = _kiwi_name_spans(text)
        if spans is None:  # no Kiwi: Latin letters and digits are the names
            spans = [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9.\-']*", text)]
    else:
        spans = _english_name_spans(text)
    return _mask(text, spans)


def names(question: str, lang: str | None = None) -> list[str]:
    """The names the skeleton masks, as written (quoted titles without their quotes), each once, in order:
    "Who was born first, Park Chan-wook or Bong Joon-ho?" -> ["Park Chan-wook", "Bong Joon-ho"]."""
    text = question.strip()
    out = [m.group(0)[1:-1].strip() for m in _QUOTED.finditer(text)]
    text = _QUOTED.sub(MASK, text)
    if (lang or detect_lang(text)) == "ko":
        spans = _kiwi_name_spans(text)
        if spans is None:
            spans = [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9.\-']*", text)]
    else:
        spans = _english_name_spans(text)
        # one capitalised word opening the question may be capitalised only for that ("Please recommend …")
        spans = [sp for sp in _merge(text, spans) if not (sp[0] == 0 and " " not in text[sp[0]:sp[1]])]
    for a, b in _merge(text, spans):
        out.append(text[a:b])
    if (lang or detect_lang(text)) == "ko":  # a work or group named after its kind: "영화 기생충에서" -> 기생충
        for m in _KO_KIND_NAME.finditer(text):
            out.append(strip_ko_ending(m.group(1), max_strips=1))
    return list(dict.fromkeys(n for n in out if n and n != MASK and MASK not in n.split()))


def _name_like(core: str) -> bool:
    return core != MASK and any(ch.isupper() or ch.isdigit() for ch in core)


def _english_name_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each name word, its surrounding quotes and punctuation left out."""
    words = []  # (start, end, core) with the core's own offsets
    for m in _TOKEN.finditer(text):
        lead, core, trail = _EDGE.match(m.group(0)).groups()
        words.append((m.start() + len(lead), m.end() - len(trail), core))
    name = [_name_like(core) and not (i == 0 and core.lower() in STOPWORDS) for i, (_, _, core) in enumerate(words)]
    # a connector between two name words belongs to the name ("Bank of America", "Leonardo da Vinci")
    for i in range(1, len(words) - 1):
        if not name[i] and words[i][2].lower() in _CONNECTORS and name[i - 1] and name[i + 1] \
                and not text[words[i - 1][1]:words[i][0]].strip():
            name[i] = True
    return [(a, b) for (a, b, _), is_name in zip(words, name) if is_name]


def _merge(text: str, spans: list[tuple[int, int]] | list[list[int]]) -> list[list[int]]:
    """Runs of name spans separated only by spaces ("갤럭시 S24", "Park Chan-wook") joined into one span."""
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and not text[merged[-1][1]:a].strip():
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return merged


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each run of name spans separated only by spaces ("갤럭시 S24", "Park Chan-wook") replaced by one X."""
    merged = _merge(text, spans)
    out, pos = [], 0
    for a, b in merged:
        out.append(text[pos:a] + MASK)
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _kiwi_name_spans(text: str) -> list[tuple[int, int]] | None:
    from gaji.text.analyzers import kiwi_tokens

    tokens = kiwi_tokens(text)
    if tokens is None:
        return None
    return [(t.start, t.start + t.len) for t in tokens if t.tag in _KIWI_NAME_TAGS and text[t.start:t.start + t.len] != MASK]
