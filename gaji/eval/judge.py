"""LLM-judge pass/fail of retrieved chunks (paper 001, Appendix A.4, "Retrieval System Application
Evaluation Prompt"), and judge-based Top@k.

For each of the first `k` retrieved passages of a question the judge explains step by step whether
the chunk holds the information needed to answer the question, then writes `pass` or `fail` on a
line of its own and repeats it on the next line. A question passes Top@n when one of its first n
judged chunks passed (paper 001, Table 7: "whether appropriate chunks were included within the top
(n) results").

The Korean prompt is the paper's; the English one is its translation (gaji/eval/judge_prompts.py). The
prompt language follows the question. The judge's calls are recorded on their own Node (never in the method's trace), so
they do not count in the method's ATC.

Self-judging is biased: when the judge model is the model that produced the answers, scores are
optimistic. `self_judging_note()` gives the text the harness prints and stores in that case.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from gaji.errors import LLMError
from gaji.eval.judge_prompts import PROMPTS
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node, Passage


_VERDICT = re.compile(r"\b(pass|fail)\b|(통과|실패)", re.I)


def parse_verdict(text: str) -> bool | None:
    """True for pass, False for fail, None when the output has no verdict. The last verdict wins
    (the prompt asks for the reasoning first, then the verdict twice)."""
    found = None
    for m in _VERDICT.finditer(text or ""):
        word = (m.group(1) or m.group(2)).lower()
        found = word in ("pass", "통과")
    return found


def self_judging_note(lang: str = "en") -> str:
    return (
        "주의: 평가 모델이 답변을 생성한 모델과 같습니다. 자기 평가는 편향되어 점수가 높게 나오는 경향이 있습니다."
        if lang == "ko"
        else "note: the judge is the generator model; self-judging is biased (scores tend to be optimistic)."
    )


@dataclass
class JudgeResult:
    verdicts: list[bool | None] = field(default_factory=list)  # per judged passage, in rank order
    node: Node = field(default_factory=lambda: Node(kind="judge"))
    errors: int = 0

    def top_at(self, n: int) -> float:
        return float(any(v is True for v in self.verdicts[:n]))

    def metrics(self, ks: tuple[int, ...]) -> dict[str, float]:
        out = {f"judge_top@{k}": self.top_at(k) for k in ks}
        judged = [v for v in self.verdicts if v is not None]
        out["judge_pass_rate"] = sum(1 for v in judged if v) / len(judged) if judged else 0.0
        return out


class RetrievalJudge:
    """Judges the first `k` retrieved passages of a question with the A.4 prompt."""

    def __init__(self, llm: TrackedLLM, k: int = 3, max_tokens: int = 384, max_chunk_chars: int = 2000):
        self.llm = llm
        self.k = k
        self.max_tokens = max_tokens
        self.max_chunk_chars = max_chunk_chars

    def messages(self, question: str, passage: Passage, lang: str) -> list[dict]:
        chunk = passage.text if len(passage.text) <= self.max_chunk_chars else passage.text[: self.max_chunk_chars] + " …"
        if passage.title:
            chunk = f"({passage.title}) {chunk}"
        return PROMPTS[lang].judge.messages(query=question, chunk=chunk)

    def judge_one(self, node: Node, question: str, passage: Passage, lang: str) -> bool | None:
        out = self.llm.chat(node, "judge", self.messages(question, passage, lang), max_tokens=self.max_tokens)
        return parse_verdict(out)

    def judge(self, question: str, passages: list[Passage], lang: str) -> JudgeResult:
        res = JudgeResult(node=Node(kind="judge", question=question))
        for p in passages[: self.k]:
            try:
                res.verdicts.append(self.judge_one(res.node, question, p, lang))
            except LLMError:
                res.verdicts.append(None)
                res.errors += 1
        return res
