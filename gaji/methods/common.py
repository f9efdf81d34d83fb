"""Shared by methods: passages as delimited data, answer parsing, citations (the prompt text itself is in
gaji/methods/prompts/)."""
from __future__ import annotations

import json
import re

from gaji.errors import ConfigError
from gaji.text.select import keys, relevant_sentences
from gaji.types import Passage

# A passage must not be able to close (or reopen) the <documents> fence it is quoted in.
_FENCE_TAG = re.compile(r"</?\s*documents\s*>", re.I)


def defuse_fence(text: str) -> str:
    """`text` with every <documents> / </documents> tag made harmless (‹documents›), so retrieved data
    cannot close the fence it is quoted in."""
    return _FENCE_TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)


def format_passages(
    passages: list[Passage], style: str = "numbered", max_chars: int = 1200, numbers: list[int] | None = None,
    query: str | None = None,
) -> str:
    """numbered: `[1] (Title) text` blocks inside <documents>…</documents>.
    wiki: IRCoT's `Wikipedia Title: <title>\\n<text>` blocks.
    numbers: the [n] label of each passage (default 1, 2, …), for citations numbered across prompts.
    A passage over `max_chars` keeps its first `max_chars` characters, or, when `query` is given, its sentences
    most relevant to the query (gaji.text.select), in their order, with "…" for the gaps."""
    blocks = []
    labels = numbers if numbers is not None else range(1, len(passages) + 1)
    query_keys = keys(query) if query is not None else None
    for i, p in zip(labels, passages):
        text = trim_passage(p.text, max_chars, query_keys)
        text = defuse_fence(text)
        # a title is one line of data too: no fence tags, and no newline to start a fake "[n]" block with
        title = defuse_fence(" ".join(p.title.split()))
        if style == "wiki":
            blocks.append(f"Wikipedia Title: {title}\n{text}")
        else:
            title = f" ({title})" if title else ""
            blocks.append(f"[{i}]{title} {text}")
    body = "\n\n".join(blocks)
    return body if style == "wiki" else f"<documents>\n{body}\n</documents>"


PASSAGE_TRIMS = ("head", "relevant")  # how a passage over its character budget is cut (trim_passage)


def check_trim(method: str, value: str) -> None:
    if value not in PASSAGE_TRIMS:
        raise ConfigError(f"option passage_trim of method {method!r} must be {' or '.join(PASSAGE_TRIMS)}, "
                          f"not {value!r}")


def trim_passage(text: str, max_chars: int, query_keys: set[str] | None = None) -> str:
    """`text` cut to `max_chars`: its head, or its sentences sharing most keys with the query."""
    if len(text) <= max_chars:
        return text
    if query_keys is None:
        return text[:max_chars] + " …"
    return relevant_sentences(text, query_keys, max_chars)[0]


# a reply in a code fence ("```json\n{...}\n```"): its content is the answer, not the fence's first line
_FENCED = re.compile(r"^\s*```[\w+-]*[ \t]*\n?(.*?)\n?\s*```\s*$", re.S)


def unfence(text: str) -> str:
    """A fenced reply's content, a JSON object or list in it as one compact line; other text as it is."""
    m = _FENCED.match(text)
    body = m.group(1).strip() if m else text.strip()
    if body[:1] in "{[":
        try:
            return json.dumps(json.loads(body), ensure_ascii=False)
        except ValueError:
            pass
    return body if m else text


def clean_answer(text: str) -> str:
    t = unfence(unfence(text).strip().split("\n")[0].strip())  # a fenced reply, or a fenced first line
    t = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]\s*", " ", t).strip()  # drop [1] citation marks
    t = t.strip(" \"'“”`")
    if t.endswith(".") and not re.search(r"\b[A-Z]\.$", t):
        t = t[:-1]
    return t.strip()


_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def cited_ids(text: str, passages: list[Passage]) -> list[str]:
    """Passage ids the text cites as [n] (1-based into `passages`), in order of first citation."""
    out: list[str] = []
    for m in _CITE.finditer(text):
        for n in m.group(1).split(","):
            i = int(n.strip()) - 1
            if 0 <= i < len(passages) and passages[i].id not in out:
                out.append(passages[i].id)
    return out


def attribute(answer: str, passages: list[Passage]) -> list[str]:
    """Passage ids that support an answer the model gave without citing: those whose text contains the whole
    normalised answer (case, punctuation and spaces ignored), else the one passage holding the largest share
    (at least half) of the answer's character bigrams -- bigrams, so Korean answers with endings attached
    ("1397년입니다") still find "1397년에". Best-ranked first; [] when nothing supports it."""
    def norm(t: str) -> str:
        return re.sub(r"[\W_]+", "", t.lower())

    def bigrams(t: str) -> set[str]:
        return {t[i:i + 2] for i in range(len(t) - 1)}

    a = norm(answer)
    if not a:
        return []
    texts = [norm(p.title + " " + p.text) for p in passages]
    whole = [p.id for p, t in zip(passages, texts) if a in t]
    if whole or len(a) < 2:
        return whole
    want = bigrams(a)
    best, best_share = None, 0.5
    for p, t in zip(passages, texts):
        share = len(want & bigrams(t)) / len(want)
        if share >= best_share and (best is None or share > best_share):
            best, best_share = p.id, share
    return [best] if best else []


def cite_one(answer: str, passages: list[Passage]) -> list[str]:
    """The one passage to cite for a short answer: the best-ranked that supports it (attribute), else the first
    passage read; [] when there are none."""
    return (attribute(answer, passages) or [p.id for p in passages[:1]])[:1]


MAX_BRIDGES = 2


def attribute_with_bridges(question: str, answer: str, passages: list[Passage]) -> list[str]:
    """attribute(), plus the passages that lead from the question to the answer's passage: a two-hop answer
    ("부산 지사") sits in one passage, but the passage that names whom the question asks about ("누리별 책임자는
    한지민") is evidence too. A bridge holds one of the question's words and a rarer word of an answer passage
    that the question does not hold: one no other passage shown holds ("한지민", "은하소재"). Words are compared with Korean particles stripped; numbers are not
    linking words. At most MAX_BRIDGES, best-ranked first."""
    ids = attribute(answer, passages)
    if not ids:
        return ids
    body = {p.id: _stems(p.text) for p in passages}  # linking words: texts only (a document's chunks share titles)
    q_words = _stems(question)
    answer_words = set().union(*(body[i] for i in ids))
    bridges: list[str] = []
    for p in passages:
        if p.id in ids or len(bridges) >= MAX_BRIDGES:
            continue
        others = [body[o.id] for o in passages if o.id != p.id and o.id not in ids]
        linking = {w for w in body[p.id] & answer_words
                   if not _shares_prefix(w, q_words) and not any(w in o for o in others)}
        if linking and _shares_word(_stems(p.title + " " + p.text), q_words):
            bridges.append(p.id)
    return ids + bridges


def _shares_word(a: set[str], b: set[str]) -> bool:
    """A word of `a` and one of `b` are one word: equal, or one begins the other (Korean endings the stripper
    leaves: "예정인" / "예정", "출시될" / "출시")."""
    return any(x == y or x.startswith(y) or y.startswith(x) for x in a for y in b)


def _shares_prefix(word: str, others: set[str]) -> bool:
    """`word` begins with the first two letters of one of `others` (the same stem, another ending)."""
    return any(word[:2] == o[:2] for o in others)


def _stems(text: str) -> set[str]:
    """Words of two letters or more without digits, Korean particles and endings stripped, lower-cased."""
    from gaji.text.answers import strip_ko_ending

    out = set()
    for w in re.findall(r"[가-힣]{2,}|[A-Za-z]{2,}", text):
        w = strip_ko_ending(w) if "가" <= w[0] <= "힣" else w.lower()
        if len(w) >= 2:
            out.add(w)
    return out


_LABEL = re.compile(r"^\s*(?:answer|name|답|정답|이름)\s*[:：]\s*", re.I)  # a label the model put before the answer


def plain_answer(text: str) -> str:
    """The answer of a "plain" reply: a short reply is cleaned like any answer (first line, [n] marks and
    quotes dropped); a long multi-line reply (a long-form answer), or one whose first line points at the list
    after it, is kept whole."""
    from gaji.methods.span import points_ahead  # span reads answers; it imports nothing of this module

    text = unfence(_LABEL.sub("", text.strip()))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and (len(text) > 100 or points_ahead(text)):  # a list after "…은 다음과 같습니다" too
        return text
    return clean_answer(text)


def interleave_ranked(lists: list[list[Passage]], k: int) -> list[Passage]:
    """Round-robin merge of several result lists (first of each, then second of each, …), each passage once,
    the first `k`. Unlike a score fusion it keeps every list's best hits, so a second search can add what
    the first one missed."""
    out: list[Passage] = []
    seen: set[str] = set()
    for rank in range(max((len(lst) for lst in lists), default=0)):
        for lst in lists:
            if rank < len(lst) and lst[rank].id not in seen:
                seen.add(lst[rank].id)
                out.append(lst[rank])
    return out[:k]
