"""Fitting a prompt into the model's context: passages are trimmed, never the question or the instructions.

Every request goes through `fit_request` (TrackedLLM does it before each call). When the prompt and the
tokens reserved for the reply fit the backend's per-request context, nothing changes. Otherwise the
retrieved passages inside the prompt's `<documents>` fence (gaji.methods.common.format_passages) are
made smaller until it fits, in this order:

1. each passage keeps its sentences that share the most words with the rest of the prompt (the
   question), in their original order, up to its share of the room left for passages (passages
   shorter than their share keep all of it, and the rest is shared among the others);
2. a passage whose most relevant sentence alone is over its share is cut to that share;
3. if the count still comes out over (sentence lengths are estimated from the passage's own token
   rate), shares shrink and, last, passages are left out from the end (the lowest ranked).

The result says what was done (`Trim`), and TrackedLLM records it on the call (LLMCall.trim), so a
trace shows which prompts were cut. A prompt without a fence, or whose fixed part alone overflows, is
sent as it is: the backend's own "prompt too long" error then names the problem.

    >>> from gaji.llm.base import Request
    >>> doc = "<documents>\\n[1] (Seoul) " + "Seoul is big. " * 30 + "\\n</documents>"
    >>> req, trim = fit_request(Request(messages=[{"role": "user", "content": doc + " Question: Seoul?"}],
    ...                         max_tokens=8), lambda t: len(t.split()), 60)
    >>> trim.after <= trim.budget, trim.passages
    (True, 1)
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable

from gaji.llm.base import Request
from gaji.text.select import keys, relevant_sentences

Counter = Callable[[str], int]

# room for the chat template around each message and a tokenizer margin
MESSAGE_OVERHEAD = 8
MARGIN = 8
_FENCE = re.compile(r"(<documents>\n)(.*?)(\n</documents>)", re.S)
_BLOCK_SPLIT = re.compile(r"\n\n(?=\[\d+\])")
_HEAD = re.compile(r"^(\[\d+\](?: \(.*?\))? ?)(.*)$", re.S)


@dataclass
class Trim:
    """How a prompt was fitted: token counts before and after, and what happened to its passages."""

    budget: int  # prompt tokens allowed: context − reply tokens − template margin
    before: int  # prompt tokens as written
    after: int  # prompt tokens as sent
    passages: int = 0  # passages found in the prompt
    to_sentences: int = 0  # passages cut to their most relevant sentences
    truncated: int = 0  # passages cut inside a sentence
    dropped: int = 0  # passages left out
    fits: bool = True  # False: even without passages the prompt is over the budget (sent as it is)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def describe(self) -> str:
        """In words, for a trace's reader: "4,210 → 3,950 tokens (budget 3,976): 3 passages cut …"."""
        parts = []
        if self.to_sentences:
            parts.append(f"{self.to_sentences} cut to relevant sentences")
        if self.truncated:
            parts.append(f"{self.truncated} truncated")
        if self.dropped:
            parts.append(f"{self.dropped} left out")
        what = f"; passages: {', '.join(parts)}" if parts else ""
        over = "" if self.fits else " (still over: sent as it is)"
        return f"{self.before:,} → {self.after:,} tokens (budget {self.budget:,}){what}{over}"


def prompt_budget(context_size: int, max_tokens: int, messages: int) -> int:
    """Prompt tokens a request may have: `messages` chat messages (0 for a raw completion prompt)."""
    return context_size - max_tokens - MARGIN - MESSAGE_OVERHEAD * messages


def _texts(req: Request) -> list[str]:
    if req.messages is not None:
        return [str(m.get("content", "")) for m in req.messages]
    return [req.prompt or ""]


def _with_texts(req: Request, texts: list[str]) -> Request:
    if req.messages is not None:
        return dataclasses.replace(req, messages=[{**m, "content": t} for m, t in zip(req.messages, texts)])
    return dataclasses.replace(req, prompt=texts[0])


@dataclass
class _Passage:
    where: int  # index of the text (message) holding it
    head: str  # "[n] (title) "
    text: str
    tokens: int = 0


def _parse(texts: list[str]) -> tuple[list[_Passage], str]:
    """The passages of every fence, and the prompt text outside the fences (what relevance is measured
    against: the question, mostly)."""
    passages: list[_Passage] = []
    outside = []
    for i, t in enumerate(texts):
        outside.append(_FENCE.sub(" ", t))
        for m in _FENCE.finditer(t):
            for block in _BLOCK_SPLIT.split(m.group(2)):
                h = _HEAD.match(block)
                head, body = (h.group(1), h.group(2)) if h else ("", block)
                passages.append(_Passage(i, head, body))
    return passages, " ".join(outside)


def _render(texts: list[str], passages: list[_Passage | None]) -> list[str]:
    """The texts with each fence's blocks replaced by the (trimmed) passages; None = left out."""
    it = iter(passages)
    out = []
    for t in texts:
        def sub(m: re.Match) -> str:
            blocks = []
            for _ in _BLOCK_SPLIT.split(m.group(2)):
                p = next(it)
                if p is not None:
                    blocks.append(p.head + p.text)
            return m.group(1) + "\n\n".join(blocks) + m.group(3)

        out.append(_FENCE.sub(sub, t))
    return out


def _shares(sizes: list[int], room: int) -> list[int]:
    """Water-filling: each passage gets min(its size, an equal share of what the smaller ones leave)."""
    share = [0] * len(sizes)
    left, todo = room, sorted(range(len(sizes)), key=lambda i: sizes[i])
    for n, i in enumerate(todo):
        fair = left // (len(todo) - n)
        share[i] = min(sizes[i], fair)
        left -= share[i]
    return share


def fit_request(request: Request, count: Counter, context_size: int) -> tuple[Request, Trim | None]:
    """The request, its passages trimmed if the prompt would overflow `context_size` (prompt + reply);
    the Trim when anything had to be done (or could not be), else None."""
    texts = _texts(request)
    budget = prompt_budget(context_size, request.max_tokens, len(texts) if request.is_chat else 0)
    # a byte-level tokenizer never makes more tokens than bytes: most prompts need no count at all
    if sum(len(t.encode("utf-8")) for t in texts) <= budget:
        return request, None
    before = sum(count(t) for t in texts)
    if before <= budget:
        return request, None
    passages, outside = _parse(texts)
    if not passages:  # nothing to cut: worth a record only when the prompt is over the context itself
        hard = context_size - request.max_tokens
        return request, (Trim(budget, before, before, fits=False) if before > hard else None)
    for p in passages:
        p.tokens = count(p.text) if p.text else 0
    fixed = before - sum(p.tokens for p in passages)
    trim = Trim(budget, before, before, passages=len(passages))
    room = budget - fixed
    if room <= 0:  # even with no passage text at all the prompt is over: nothing a trim can do
        trim.fits = False
        return request, trim
    query = keys(outside)
    originals = [p.text for p in passages]
    kept: list[_Passage | None] = list(passages)
    scale = 1.0
    for _attempt in range(4 + len(passages)):
        live = [i for i, p in enumerate(kept) if p is not None]
        shares = _shares([passages[i].tokens for i in live], int(room * scale))
        trim.to_sentences = trim.truncated = 0
        for i, share in zip(live, shares):
            p, text = passages[i], originals[i]
            if passages[i].tokens <= share:
                p.text = text
                continue
            rate = len(text) / max(1, passages[i].tokens)  # characters per token of this passage
            p.text, cut = relevant_sentences(text, query, int(share * rate))
            trim.truncated += cut
            trim.to_sentences += not cut
        texts_now = _render(texts, kept)
        after = sum(count(t) for t in texts_now)
        if after <= budget:
            trim.after = after
            return _with_texts(request, texts_now), trim
        scale *= 0.85 * budget / after
        if scale < 0.35 and len(live) > 1:  # shares too small to be useful: leave the lowest ranked out
            kept[live[-1]] = None
            trim.dropped += 1
            scale = 1.0
    texts_now = _render(texts, kept)
    trim.after = sum(count(t) for t in texts_now)
    trim.fits = trim.after <= budget
    return _with_texts(request, texts_now), trim
