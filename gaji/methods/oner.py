"""OneR: retrieve K passages with the question once, answer from them with citations
(IRCoT §4's one-step retrieval baseline; the ToQ paper's Direct Generation over retrieved documents)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gaji.methods.base import Method, RunContext
from gaji.methods.describe import Facts
from gaji.errors import ConfigError
from gaji.methods.common import (attribute_with_bridges, check_trim, cited_ids, clean_answer, format_passages,
                                 plain_answer)
from gaji.methods.reask import ask_plain
from gaji.methods.long_answer import long_tokens, write_long
from gaji.methods.prompts import common as common_prompts
from gaji.methods.prompts import direct
from gaji.registry import METHODS
from gaji.methods.subject import holding, subject_names
from gaji.types import Fact, Node, Passage, Trace

_ANSWER = re.compile(r"^\s*(?:answer|답)\s*[:：]\s*(.+)$", re.I | re.M)
_SOURCES = re.compile(r"^\s*(?:sources?|근거)\s*[:：]\s*(.+)$", re.I | re.M)


@METHODS.register("oner", help="retrieve K passages with the question once, answer from them")
class OneR(Method):
    name = "oner"

    @dataclass
    class Options:
        k: int = 5
        max_tokens: int = 96
        passage_chars: int = 1200  # each passage is cut to this many characters in the prompt …
        # … by keeping its head ("head") or its sentences most relevant to the question ("relevant";
        # gaji.text.select): fewer prompt tokens for long (Korean) paragraphs, without losing the answer sentence
        passage_trim: str = "head"
        # the budget for a Korean question's passages, when not 0: Hangul costs about three times the tokens per
        # character of English, so the same character budget is a much larger prompt (the Korean dev part read
        # 2,400 prompt tokens per question at 1,200 characters; relevant sentences within 400 kept 122 of 125
        # sub-answers, benchmarks/trim/komultihop-dev.md and benchmarks/auto/NOTES.md)
        passage_chars_ko: int = 0
        # plain: the model gives only the answer; citations = the passages that support it, and the passages
        # that lead to those (attribute_with_bridges()).
        # cite: the model answers and lists the [n] of the documents it used. plain scored higher
        # (BENCHMARKS.md, "One retrieval and the multi-step baselines").
        # long: a cited paragraph of about `words` words (RetGen for long-form sets such as ASQA, ODSum).
        style: str = "plain"
        words: int = 250  # length of a "long" answer
        # style plain: an answer of the wrong shape is asked about once more in the same conversation (one more call,
        # purpose "reask"; gaji.methods.reask): one the question itself names ("…서울시장이 태어난 도시는?" ->
        # "서울"), or a value where the question asks which one ("A와 B 중 누가 먼저 태어났나?" -> "1901년")
        reask: bool = False
        # a Korean question about one named thing reads only the passages that name it (gaji.methods.subject): a
        # passage about something else is set aside, with its tokens. Off, also in auto: on KorQuAD 131-160 it
        # scored 47.3 against 52.6 reading all five (benchmarks/auto/cascade/NOTES.md)
        subject_only: bool = False
        # record how sure the model was of its answer (the answer tokens' log-probabilities, LLMCall.confidence):
        # what `auto` reads to decide whether the answer stands; a backend without log-probabilities records none
        logprobs: bool = False

        def __post_init__(self) -> None:
            if self.style not in ("plain", "cite", "long"):
                raise ConfigError(f"oner option style must be plain, cite or long, not {self.style!r}")
            check_trim("oner", self.passage_trim)

    @classmethod
    def describe(cls, node: Node, lang: str) -> list[Fact]:
        s = node.data.get("subject_only")
        f = Facts(lang)
        if s:
            names = ", ".join(s.get("names") or [])
            f.note("passages read", "읽은 문서", s, f"{len(s['read'])} of {s['of']}, those naming {names}"
                   if lang != "ko" else f"{s['of']}개 중 질문의 이름({names})이 나오는 {len(s['read'])}개")
        return f.lines + [x for x in super().describe(node, lang) if x not in f.lines]

    def solve(self, trace: Trace, ctx: RunContext) -> None:
        lang, root = ctx.lang, trace.root
        passages = ctx.retrieve(root, trace.question, self.opts.k)
        if self.opts.style == "long":
            long = write_long(ctx, root, trace.question, passages, words=self.opts.words,
                              passage_chars=self.opts.passage_chars,
                              max_tokens=long_tokens(self.opts.words, floor=self.opts.max_tokens))
            trace.answer = root.answer = long.text
            trace.citations = long.citations
            root.data["raw_output"] = long.raw
            return
        if self.opts.subject_only:
            passages = read_about_subject(root, trace.question, passages, lang)
        chars = self.opts.passage_chars_ko if lang == "ko" and self.opts.passage_chars_ko else self.opts.passage_chars
        fenced = format_passages(passages, max_chars=chars,
                                 query=trace.question if self.opts.passage_trim == "relevant" else None)
        prompt = direct.PROMPTS[lang].plain if self.opts.style == "plain" else direct.PROMPTS[lang].cite
        messages = prompt.messages(data_note=common_prompts.PROMPTS[lang].data_note, passages=fenced,
                                   question=trace.question)
        out = ask_plain(ctx.llm, root, messages, trace.question, passages, lang, self.opts.max_tokens,
                        reask=self.opts.style == "plain" and self.opts.reask, logprobs=2 if self.opts.logprobs else 0)
        if self.opts.style == "plain":
            answer = plain_answer(out)
            trace.citations = cited_ids(out, passages) or attribute_with_bridges(trace.question, answer, passages)
        else:
            answer, sources = parse_answer_sources(out)
            trace.citations = cited_ids(sources, passages) or cited_ids(out, passages)
        trace.answer = answer
        root.answer = answer
        root.data["raw_output"] = out


def read_about_subject(node: Node, question: str, passages: list[Passage], lang: str) -> list[Passage]:
    """The retrieved passages the reader gets: those about the question's subject (gaji.methods.subject). When some
    are set aside, the node records which were read, of how many, and the names that chose them."""
    names = subject_names(question, lang)
    read = holding(passages, names)
    if len(read) < len(passages):
        node.data["subject_only"] = {"names": names, "read": [p.id for p in read], "of": len(passages)}
    return read


def parse_answer_sources(text: str) -> tuple[str, str]:
    """('Answer: X\\nSources: [1], [3]') -> ('X', '[1], [3]'); falls back to the first line."""
    m = _ANSWER.search(text)
    answer = clean_answer(m.group(1)) if m else clean_answer(text)
    s = _SOURCES.search(text)
    sources = s.group(1) if s else ""
    if sources and "[" not in sources:  # "Sources: 1, 3" -> "[1, 3]"
        nums = re.findall(r"\d+", sources)
        sources = "[" + ", ".join(nums) + "]" if nums else ""
    return answer, sources
