"""A follow-up question rewritten into a standalone one, as a node of the trace.

    node = rewrite_followup(llm, "그럼 그 사람이 처음 나온 드라마는?", history, lang="auto")
    node.filled_question   # the standalone question the method then answers

The rewrite is one LLM call through the run's TrackedLLM, recorded on a Node of kind "rewrite"
(question = the follow-up as asked, filled_question = the rewrite), so it is counted in the trace's
usage and shown in its tree. A first question (no history) is never rewritten and costs nothing. A
failed call, or an output that is not a usable question, leaves the question as it was asked (the
node says why).
"""
from __future__ import annotations

import re
import time

from gaji.conversation import prompts as conversation_prompts
from gaji.conversation.resolve import needs_resolving, resolve_left_references
from gaji.conversation.turns import Turn
from gaji.errors import LLMError
from gaji.llm.prompts import chat_messages, fill
from gaji.llm.tracked import TrackedLLM
from gaji.methods.describe import Facts
from gaji.text.lang import resolve_lang
from gaji.types import Node, Trace

MAX_TURNS = 3  # the turns the rewrite sees: the latest ones
ANSWER_CHARS = 300  # each earlier answer is cut to this many characters
MAX_TOKENS = 96

_PREFIX = re.compile(r"^\s*(?:rewritten question|standalone question|question|다시 쓴 질문|질문)\s*[:：]\s*", re.I)


def rewrite_messages(lang: str, history: list[Turn], question: str) -> list[dict]:
    p = conversation_prompts.PROMPTS[lang]
    shots = [(conversation_prompts.user_message(lang, turns, q), out) for turns, q, out in p.examples]
    turns = [(t.resolved, _cut(t.answer)) for t in history[-MAX_TURNS:]]
    return chat_messages(fill(p.rewrite_system), conversation_prompts.user_message(lang, turns, question), shots)


def rewrite_followup(llm: TrackedLLM, question: str, history: list[Turn], lang: str = "auto") -> Node:
    """The "rewrite" node for `question` asked after `history` (which must not be empty)."""
    question = question.strip()
    lang = resolve_lang(lang, question)
    node = Node(question=question, kind="rewrite", filled_question=question)
    node.data["turns"] = len(history)
    t0 = time.perf_counter()
    try:
        out = llm.chat(node, "rewrite", rewrite_messages(lang, history, question), max_tokens=MAX_TOKENS,
                       stop=["\n"])
    except LLMError as e:
        node.status, node.error = "failed", f"{e} (the question is answered as asked)"
    else:
        rewritten = parse_rewrite(out)
        if rewritten:
            node.filled_question = rewritten
        else:
            node.data["unusable_output"] = out
        _check_and_resolve(llm, node, question, history, lang)
    node.data["changed"] = node.filled_question != question
    node.wall_ms = (time.perf_counter() - t0) * 1000
    node.display = describe_rewrite(node, lang)
    return node


def _check_and_resolve(llm: TrackedLLM, node: Node, question: str, history: list[Turn], lang: str) -> None:
    """When the free rewrite kept a reference or left a Korean follow-up unchanged, resolve the follow-up as
    asked by narrow choices (gaji/conversation/resolve.py) and take that instead."""
    why = needs_resolving(question, node.filled_question, history, lang)
    if not why:
        return
    res = resolve_left_references(llm, node, question, history, lang)
    node.data["resolve"] = {"why": why, "free_rewrite": node.filled_question, "steps": res.steps}
    if res.question:
        node.filled_question = res.question


def describe_rewrite(node: Node, lang: str) -> list:
    """How the rewrite node is shown (Node.display): a follow-up after N turns, the standalone question it was
    rewritten as, and why it was kept as asked when it was. The renderers show a node whose description
    words its filled question under the question as asked (here: the follow-up, the rewrite's input)."""
    turns = node.data.get("turns", 0)
    f = Facts(lang).tag("follow-up", "후속 질문", True, f"after {turns} turn(s)" if lang != "ko" else f"대화 {turns}턴 뒤")
    changed = node.filled_question and node.filled_question != node.question
    f.note("rewritten as", "다시 쓴 질문", node.filled_question if changed else None)
    kept = node.status == "failed" or "unusable_output" in node.data
    f.decision("kept as asked", "물은 그대로", kept, "the rewrite failed" if lang != "ko" else "다시 쓰기 실패")
    for step in node.data.get("resolve", {}).get("steps", []):
        f.note("resolved", "풀어 쓴 지칭", True, f"{step['reference']} → {step['name']} ({step['how']})")
    return f.lines


def parse_rewrite(text: str) -> str:
    """The rewritten question from the model's output: its first line without a label or quotes; "" when
    nothing usable is left."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    q = _PREFIX.sub("", lines[0]).strip().strip("\"'“”‘’「」『』").strip()
    return q if len(q) >= 2 else ""


def attach(trace: Trace, node: Node) -> None:
    """Put the rewrite node first under the trace's root (after the run: the method never sees it among
    the root's children) and note the question as asked on the root."""
    node.level = trace.root.level + 1
    trace.root.children.insert(0, node)
    trace.root.data["conversation"] = {"asked": node.question, "standalone": node.filled_question,
                                       "turns": node.data.get("turns", 0)}


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS] + " …"
