"""Few-shot machinery shared by the chain-of-thought family (cot, ircot, self_ask, iter_retgen).

- `Demo`: one annotated multi-hop question: its chain of thought, its follow-up decomposition
  (Self-Ask), its gold paragraphs and distractor paragraphs. Demos are data, bundled as
  gaji/methods/demos/multihop_<lang>.jsonl (written for gaji; none comes from a benchmark dev set),
  or any JSONL file in the same format (`-o demos=PATH`).
- `FewShotOptions`: the options every few-shot method shares (M distractors, context budget, …).
- `fit_prompt`: header + as many demonstrations as fit the model's context + the test block
  (IRCoT §4.1: "as many demonstrations as fit"), counting with the model's own tokenizer.
- CoT text helpers: the first generated sentence, the "answer is:" marker.
"""
from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from gaji.errors import ConfigError, InputError
from gaji.io import iter_jsonl
from gaji.llm.base import Request
from gaji.llm.tracked import TrackedLLM
from gaji.text.sentences import split_sentences
from gaji.types import Node

DEMO_DIR = Path(__file__).parent / "demos"
DEMO_SEP = "\n\n\n"  # between the header, the demonstrations and the test block


# -- demonstrations ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Paragraph:
    title: str
    text: str


@dataclass(frozen=True)
class FollowUp:
    question: str
    answer: str


@dataclass(frozen=True)
class Demo:
    """One annotated question. `cot` ends with the answer sentence ("So the answer is: X.")."""

    id: str
    question: str
    answer: str
    cot: tuple[str, ...]
    followups: tuple[FollowUp, ...] = ()
    gold: tuple[Paragraph, ...] = ()
    distractors: tuple[Paragraph, ...] = ()

    @property
    def cot_text(self) -> str:
        return " ".join(self.cot)

    def paragraphs(self, m: int, seed: int = 0) -> list[Paragraph]:
        """The gold paragraphs mixed with M distractors (IRCoT §3.1), in an order fixed by (id, seed)."""
        paras = [*self.gold, *self.distractors[: max(0, m)]]
        random.Random(f"{self.id}:{seed}").shuffle(paras)
        return paras


def demo_path(lang: str) -> Path:
    return DEMO_DIR / f"multihop_{'ko' if lang == 'ko' else 'en'}.jsonl"


def load_demos(lang: str, path: str = "") -> list[Demo]:
    """The demonstrations for `lang` (bundled), or those in `path` (a JSONL file in the same format)."""
    p = Path(path).expanduser() if path else demo_path(lang)
    if not p.is_file():
        raise InputError("demonstrations file not found", path=str(p))
    return list(_load(str(p.resolve()), p.stat().st_mtime_ns))


@functools.lru_cache(maxsize=16)
def _load(path: str, _mtime: int) -> tuple[Demo, ...]:
    demos = [_demo(d, path, n) for n, d in iter_jsonl(path)]
    if not demos:
        raise InputError("no demonstrations in file", path=path)
    return tuple(demos)


def _demo(d: object, path: str, line: int) -> Demo:
    if not isinstance(d, dict):
        raise InputError("each line must be a JSON object", path=path, line=line)

    def text(key: str, obj: dict | None = None) -> str:
        v = (d if obj is None else obj).get(key)
        if not isinstance(v, str) or not v.strip():
            raise InputError("must be a non-empty string", path=path, line=line, field=key)
        return v.strip()

    def paras(key: str) -> tuple[Paragraph, ...]:
        v = d.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise InputError("must be a list of {title, text} objects", path=path, line=line, field=key)
        return tuple(Paragraph(str(x.get("title", "")).strip(), text("text", x)) for x in v)

    cot = d.get("cot")
    if not isinstance(cot, list) or not cot or not all(isinstance(s, str) and s.strip() for s in cot):
        raise InputError("must be a non-empty list of sentences", path=path, line=line, field="cot")
    fus = d.get("followups", [])
    if not isinstance(fus, list) or not all(isinstance(x, dict) for x in fus):
        raise InputError("must be a list of {question, answer} objects", path=path, line=line, field="followups")
    gold = paras("gold")
    if not gold:
        raise InputError("needs at least one gold paragraph", path=path, line=line, field="gold")
    return Demo(
        id=str(d.get("id") or f"line{line}"),
        question=text("question"),
        answer=text("answer"),
        cot=tuple(s.strip() for s in cot),
        followups=tuple(FollowUp(text("question", x), text("answer", x)) for x in fus),
        gold=gold,
        distractors=paras("distractors"),
    )


# -- options every few-shot method shares -----------------------------------------------------
@dataclass
class FewShotOptions:
    m: int = 2  # distractor paragraphs per demonstration (IRCoT searches M in {1, 2, 3})
    max_demos: int = 0  # 0: as many demonstrations as fit the context (IRCoT §4.1)
    demos: str = ""  # demonstrations JSONL; "" = the bundled multihop_<lang>.jsonl
    context_tokens: int = 0  # prompt + generation budget; 0 = what the backend gives one request
    passage_chars: int = 1200  # each retrieved paragraph is cut to this many characters in prompts
    seed: int = 0  # order of gold and distractor paragraphs inside the demonstrations

    def __post_init__(self) -> None:
        if self.demos:  # a missing or malformed file is an error before any question runs
            if not Path(self.demos).expanduser().is_file():
                raise ConfigError(f"option demos: demonstrations file not found: {self.demos}")
            load_demos("en", self.demos)


def context_budget(llm: object, opts: FewShotOptions) -> int:
    """Tokens one prompt + its generation may use: the option, else the backend's per-request context."""
    if opts.context_tokens > 0:
        return opts.context_tokens
    backend = getattr(llm, "backend", llm)
    return int(getattr(backend, "context_size", 0) or 4096)


# -- paragraphs in IRCoT's "Wikipedia Title: <title>\n<text>" form -----------------------------
class Titled(Protocol):
    @property
    def title(self) -> str: ...

    @property
    def text(self) -> str: ...


def paragraph_blocks(paragraphs: Sequence[Titled], label: str, max_chars: int = 1200) -> str:
    """`<label> <title>\\n<text>` blocks separated by blank lines (the IRCoT template)."""
    out = []
    for p in paragraphs:
        body = " ".join(p.text.split())
        if len(body) > max_chars:
            body = body[:max_chars].rstrip() + " …"
        out.append(f"{label} {p.title}\n{body}")
    return "\n\n".join(out)


# -- fitting a prompt into the context ---------------------------------------------------------
class TokenCounter:
    """The LLM's token count, memoised (demonstration blocks are counted once per run)."""

    def __init__(self, count: Callable[[str], int]):
        self._count = count
        self._memo: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._memo.get(text)
        if n is None:
            n = self._memo[text] = self._count(text)
        return n


@dataclass
class Fitted:
    text: str
    demos: int  # demonstrations included
    paragraphs: int  # test paragraphs included (fewer than given only if they alone overflow)
    tokens: int  # estimated prompt tokens
    chosen: list[int] = field(default_factory=list)  # indices of the demonstration blocks included


def fit_prompt(
    count: TokenCounter,
    budget: int,
    header: str,
    demo_blocks: Sequence[str],
    test_block: Callable[[int], str],
    n_paragraphs: int,
    reserve: int,
    max_demos: int = 0,
    test_reserve: int = 0,
) -> Fitted:
    """header + demonstrations (in order, each kept if it still fits) + test block, within `budget`.

    `test_block(n)` renders the test question with its first n paragraphs; the test paragraphs come
    first (IRCoT caps them so that demonstrations fit), and only if they alone overflow are the last
    ones left out. `reserve` is kept free for the generation (plus a small tokenizer margin);
    `test_reserve` is room kept for a test block that will grow (at least that much is assumed)."""
    sep = count(DEMO_SEP)
    fixed = (count(header) + sep if header else 0) + reserve + 8
    n = n_paragraphs
    test = test_block(n)
    while n > 0 and fixed + count(test) > budget:
        n -= 1
        test = test_block(n)
    test_tokens = count(test)
    used = fixed + max(test_tokens, test_reserve)
    chosen: list[int] = []
    for i, block in enumerate(demo_blocks):
        if max_demos and len(chosen) >= max_demos:
            break
        t = count(block) + sep
        if used + t <= budget:
            chosen.append(i)
            used += t
    text = DEMO_SEP.join([*([header] if header else []), *(demo_blocks[i] for i in chosen), test])
    tokens = used - reserve - 8 - max(test_tokens, test_reserve) + test_tokens
    return Fitted(text=text, demos=len(chosen), paragraphs=n, tokens=tokens, chosen=chosen)


# -- chain-of-thought text -------------------------------------------------------------------------
# "So the answer is: X" (IRCoT's termination and answer marker) and the Korean "따라서 정답은: X"; the colon may be
# left out after the exemplars' full phrase ("So the answer is X", "따라서 정답은 1446년입니다"), not after a bare
# "answer is", which also opens "the answer is not in the passages".
_MARKER = re.compile(r"(?:answer is|정답은|답은)\s*:\s*(.*)|(?:so the answer is|따라서 정답은|따라서 답은)\s+(.*)",
                     re.I | re.S)


def first_sentence(text: str) -> str:
    """The first sentence of a generation (IRCoT keeps only it at each reasoning step)."""
    sents = split_sentences(text.strip())
    return " ".join(sents[0].split()) if sents else ""


def has_answer_marker(text: str) -> bool:
    """Does the text report the answer ("answer is:", "정답은:")? IRCoT stops reasoning when it does."""
    return _MARKER.search(text) is not None


def answer_after_marker(text: str) -> str | None:
    """The answer after the first "answer is:" / "정답은:" marker (to the end of its sentence or line);
    None when there is no marker."""
    m = _MARKER.search(text)
    if m is None:
        return None
    rest = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
    rest = rest.split("\n", 1)[0]
    sents = split_sentences(rest)
    ans = sents[0] if sents else rest
    ans = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", ans).strip()
    if ans.endswith(".") and not re.search(r"\.[A-Za-z]\.$", ans):  # keep "D.C.", "U.S."
        ans = ans[:-1]
    return ans.strip().strip("\"'“”「」").strip()


def cot_answer(text: str) -> str:
    """IRCoT's CoT-reader rule: the answer after "answer is:"; the whole generation when unparsable."""
    found = answer_after_marker(text)
    return found if found is not None else " ".join(text.split())


# -- generating a chain sentence by sentence ------------------------------------------------------
_MAX_RESUMES = 3  # continuations after a period that turned out not to end the sentence
# Words whose period is followed by more of the same name: titles and "St. Louis", "Mt. Everest".
# (Words that end a name, like "Jr.", "Inc.", or an answer "no.", do end the sentence.)
_PREFIX_ABBREVIATIONS = frozenset(
    "st mt ft dr mr mrs ms prof rev gen col lt capt sgt gov sen rep pres vs".split()
)


def period_continues(text: str) -> bool:
    """Would a period right after `text` be inside the sentence, not its end? True after an initial
    ("F" of "F. W. Murnau"), a title-like abbreviation ("St") or a dotted acronym ("U.S")."""
    words = text.split()
    if not words:
        return False
    w = words[-1].lstrip("(\"'“‘")
    return (
        (len(w) == 1 and w.isalpha() and w.isupper())
        or w.lower() in _PREFIX_ABBREVIATIONS
        or re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", w) is not None
    )


def generate_sentence(
    llm: TrackedLLM, node: Node, purpose: str, prompt: str, stop: list[str], max_tokens: int
) -> tuple[str, int]:
    """Generate until the first sentence is complete; returns (generation, completion tokens used).

    A chain of thought is one line, so a newline ends it. ". " also stops generation, to spare the
    tokens a model writes after the sentence we keep; when that period was not a sentence end
    ("F. W. Murnau", "St. Louis") generation resumes after it, the prompt so far served from the
    backend's prompt cache. Greedy decoding makes this the same text one long call would give."""
    text, used = "", 0
    for _ in range(_MAX_RESUMES + 1):
        res = llm.call(node, purpose, Request(prompt=prompt + text, stop=["\n", ". ", *stop],
                                              max_tokens=max(1, max_tokens - used)))
        text += res.text
        used += max(1, res.completion_tokens)
        body = text.strip()
        if not body or not res.text.strip():
            break
        if len(split_sentences(body)) > 1 or body[-1] in ".!?。" or res.finish_reason == "length" or used >= max_tokens:
            break
        if not period_continues(body):
            return text + ".", used  # the period cut off by the stop ended the sentence
        text += "."  # an initial or an abbreviation: resume after its period
    return text, used


def generate_chain(
    llm: TrackedLLM, node: Node, purpose: str, prompt: str, stop: list[str], max_tokens: int
) -> str:
    """A chain of thought written sentence by sentence after `prompt`, until a sentence gives the
    answer ("answer is:"), the model ends the line, or `max_tokens` are spent. Stopping at the answer
    sentence saves what small models write after it (often the answer sentence again and again)."""
    sentences: list[str] = []
    used = 0
    while used < max_tokens:
        so_far = " ".join(sentences)
        out, n = generate_sentence(llm, node, purpose, prompt + (" " + so_far if so_far else ""), stop,
                                   max_tokens - used)
        used += n
        sentence = first_sentence(out)
        if not sentence or (sentences and sentence == sentences[-1]):
            break  # the model ended the line, or repeats itself
        sentences.append(sentence)
        if has_answer_marker(sentence):
            break
    return " ".join(sentences)
