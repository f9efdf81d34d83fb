"""Query evaluator (the paper's §3.4 and Prompt B.4; Algorithm 1, line 9).

An LLM judges how well a response (the paper's "summary") answers a question:

- semantic_coherence: 1–10, logical flow and relevance to the question;
- answerability: 0–100 %, the probability that the response directly and completely answers it;
- overall: the mean of coherence and answerability converted to the 1–10 scale
  (answerability / 10, floored at 1 so the scale starts at 1 like coherence);
- response_validity: the model's binary verdict, based on the two scores.

ToQ stops expanding a node when the evaluation is positive (response_validity). The evaluator is also
used by the eval harness on any method's answers:

    QueryEvaluator(llm).evaluate(node, question, answer, lang, passages=None)
      -> {"semantic_coherence": int, "answerability": int, "overall": float, "response_validity": bool}
"""
from __future__ import annotations

from gaji.llm.prompts import fill
from gaji.llm.tracked import TrackedLLM
from gaji.methods.common import trim_passage
from gaji.methods.toq.prompts import PROMPTS
from gaji.types import Node, Passage

EVAL_SCHEMA = {
    "type": "object",
    "properties": {
        # a few words of reasoning first (what is asked, what is given): the small model's verdicts
        # follow them (benchmarks/toq/evaluator-*.md); bounded so the grammar always closes them
        "asks_for": {"type": "string", "maxLength": 60},
        "response_gives": {"type": "string", "maxLength": 60},
        "semantic_coherence": {"type": "integer", "minimum": 1, "maximum": 10},
        "answerability": {"type": "integer", "minimum": 0, "maximum": 100},
        "response_validity": {"type": "boolean"},
    },
    "required": ["asks_for", "response_gives", "semantic_coherence", "answerability", "response_validity"],
}


def overall_score(semantic_coherence: float, answerability: float) -> float:
    """Mean of coherence (1–10) and answerability (0–100 %) on the 1–10 scale."""
    return round((semantic_coherence + max(1.0, answerability / 10.0)) / 2.0, 2)


class QueryEvaluator:
    def __init__(self, llm: TrackedLLM, passage_chars: int = 300, max_tokens: int = 120):
        self.llm = llm
        self.passage_chars = passage_chars
        self.max_tokens = max_tokens

    def messages(self, question: str, answer: str, lang: str, passages: list[Passage] | None = None) -> list[dict]:
        p = PROMPTS[lang]
        evidence = ""
        if passages:
            lines = []
            for i, ps in enumerate(passages, 1):
                text = trim_passage(ps.text, self.passage_chars)
                lines.append(f"[{i}] ({ps.title}) {text}" if ps.title else f"[{i}] {text}")
            evidence = fill(p.evidence_header) + "\n".join(lines)
        return p.evaluate.messages(question=question, answer=answer.strip(), evidence=evidence)

    def evaluate(
        self, node: Node, question: str, answer: str, lang: str, passages: list[Passage] | None = None
    ) -> dict:
        """Scores of `answer` for `question` (the call is recorded on `node`; LLMError after retries).

        `passages`, when given, are shown as the response's sources (cut to `passage_chars`)."""
        obj = self.llm.json(node, "evaluate", self.messages(question, answer, lang, passages),
                            schema=EVAL_SCHEMA, max_tokens=self.max_tokens)
        node.data["eval_reason"] = {k: str(obj.get(k, "")) for k in ("asks_for", "response_gives")}
        coherence = int(obj["semantic_coherence"])
        answerability = int(obj["answerability"])
        return {
            "semantic_coherence": coherence,
            "answerability": answerability,
            "overall": overall_score(coherence, answerability),
            "response_validity": bool(obj["response_validity"]),
        }
