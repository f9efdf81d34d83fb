"""Every prompt gaji sends, rendered with fixed inputs in English and Korean, byte for byte as recorded.

Recorded runs and the LLM cache are keyed by the exact prompt text, so a prompt that changes by one byte makes
them stale. Each case below runs a method (or a recipe, or one component) over a fixed question and a small
in-memory index with a scripted LLM (gaji.testing.any_llm) and collects every request the LLM received; the set
of requests must equal the one in tests/data/prompt_snapshot.json.

A deliberate prompt change rewrites the snapshot: `GAJI_WRITE_PROMPT_SNAPSHOT=1 pytest tests/test_prompt_snapshot.py`,
and the diff of that file is then part of the change to review.
"""
from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

from gaji import recipes
from gaji.api import Gaji
from gaji.config import Settings
from gaji.conversation.resolve import resolve_left_references
from gaji.conversation.rewrite import rewrite_messages
from gaji.conversation.turns import Turn
from gaji.eval.judge import RetrievalJudge
from gaji.expand.judge_prompts import judge_messages, question_set
from gaji.expand.prompts import expand_messages, keyword_messages
from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.reask import recheck
from gaji.methods.toq.decomposer import QuestionDecomposer
from gaji.methods.toq.evaluator import QueryEvaluator
from gaji.methods.toq.integrator import AnswerIntegrator
from gaji.methods.toq.order import order_hint
from gaji.methods.toq.responder import ResponseGenerator
from gaji.registry import METHODS
from gaji.testing import ListRetriever, any_llm
from gaji.types import Node, Passage

SNAPSHOT = Path(__file__).parent / "data" / "prompt_snapshot.json"

DOCS = [
    ("en-guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944 {not a field}."),
    ("en-manila", "Battle of Manila", "The Battle of Manila was fought from 3 February to 3 March 1945."),
    ("ko-gyeong", "경복궁", "경복궁은 1395년에 지어진 조선의 법궁이다. 흥선대원군이 1867년에 다시 지었다."),
    ("ko-toji", "토지", "『토지』는 박경리가 1969년부터 1994년까지 쓴 대하소설이다."),
]
QUESTION = {
    "en": "Which battle came first, the Battle of Guam or the Battle of Manila?",
    "ko": "경복궁을 다시 지은 사람은 누구이고 언제 지었나요?",
}
PASSAGE = {lang: Passage(id=d[0], doc_id=d[0], title=d[1], text=d[2]) for lang, d in (("en", DOCS[0]), ("ko", DOCS[2]))}
LANGS = ("en", "ko")

# a method's options that change what it asks (the defaults and every recipe run as well)
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("oner", {"style": "cite"}),
    ("oner", {"style": "long", "words": 40}),
    ("iter_retgen", {"style": "long", "words": 40}),
    ("self_ask", {"style": "long", "words": 40}),
    ("ircot", {"reader": "cot"}),
    ("chain", {"closed_book": True, "max_length": 2}),
    ("toq", {"integrate": "batch"}),
    ("toq", {"respond": "json"}),
    ("toq", {"answer_style": "long"}),
    ("toq", {"order_hints": True, "final_search": True, "search": "both"}),
    ("contregen", {"max_depth": 1, "max_subquestions": 2}),
]


def request_record(req: Request) -> list[list[str]]:
    if req.messages is not None:
        return [[str(m.get("role")), str(m.get("content", ""))] for m in req.messages]
    return [["prompt", req.prompt or ""]]


def run_method(method: str, options: dict[str, Any], lang: str, docs: list = DOCS,
               llm: ScriptedLLM | None = None) -> list[Request]:
    llm = llm or any_llm()
    g = Gaji(llm=llm, retriever=ListRetriever(docs), settings=Settings(retries=0, k=2))
    g.ask(QUESTION[lang], method=method, options=dict(options), parallel=False)
    return llm.requests


def self_asking() -> ScriptedLLM:
    """A Self-Ask chain with one follow-up: the follow-up, its reader's answer, then the final answer."""
    moves = iter([" Yes.\nFollow up: When was the Battle of Guam fought?\n", " So the final answer is: Guam"])

    def reply(req: Request) -> str:
        if req.messages is not None:
            return "Answer: 1944\nSources: [1]"
        return next(moves, " So the final answer is: Guam")

    return ScriptedLLM(default=reply)


def capturing(default: Any = "1") -> tuple[ScriptedLLM, TrackedLLM]:
    backend = ScriptedLLM(default=default)
    return backend, TrackedLLM(backend, retries=0)


def render_expand(lang: str) -> list[Request]:
    text = PASSAGE[lang].text
    msgs = [expand_messages(text, lang), expand_messages(text, lang, doc_title=PASSAGE[lang].title),
            keyword_messages(QUESTION[lang], lang)]
    for kind in ("keywords", "title", "questions"):
        item = question_set(["Q1?", "Q2?", "Q3?"]) if kind == "questions" else "item {x}"
        msgs.append(judge_messages(kind, lang, item=item, chunk=text, query=QUESTION[lang]))
        msgs.append(judge_messages(kind, lang, item=item, reference="ref", chunk=text, query=QUESTION[lang]))
    return [Request(messages=m) for m in msgs]


def render_conversation(lang: str) -> list[Request]:
    if lang == "ko":
        history = [Turn("소설 『토지』를 쓴 작가는 누구야?", "박경리"), Turn("경복궁은 누가 다시 지었어?", "흥선대원군과 고종")]
        followups = ["그 사람은 어디에서 태어났어?", "언제 완공됐어?"]
    else:
        history = [Turn("Who wrote The Old Man and the Sea?", "Ernest Hemingway"),
                   Turn("Which two rivers meet at Khartoum?", "The Blue Nile and the White Nile")]
        followups = ["Where was he born?", "How long is it?"]
    reqs = [Request(messages=rewrite_messages(lang, history, q)) for q in followups]
    backend, llm = capturing("1")
    for q in followups:
        resolve_left_references(llm, Node(question=q, kind="rewrite"), q, history, lang)
    return reqs + backend.requests


def render_eval_judge(lang: str) -> list[Request]:
    judge = RetrievalJudge(TrackedLLM(ScriptedLLM(default="pass")))
    return [Request(messages=judge.messages(QUESTION[lang], PASSAGE[lang], lang))]


def render_reask(lang: str) -> list[Request]:
    base = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    asked: list[Request] = []

    def chat(messages: list[dict]) -> str:
        asked.append(Request(messages=messages))
        return "x"

    if lang == "ko":
        cases = [("2010년", "2010년 방탄소년단의 새 멤버를 뽑는 오디션을 연 프로듀서가 작곡가로 데뷔한 해는?"),
                 ("1901년", "알렉산더 헤이그와 쇼와 천황 중 누가 먼저 태어났나?")]
    else:
        cases = [("Seoul", "Which university in Seoul did the mayor of Seoul attend?"),
                 ("1889", "Which was founded first, Nintendo or Sony?")]
    for reply, question in cases:
        recheck(chat, base, reply, question, [PASSAGE[lang]], lang)
    return asked


def render_toq_parts(lang: str) -> list[Request]:
    backend, llm = capturing({})
    for shape in ("chain", "compare"):
        router = SimpleNamespace(route=lambda q, s=shape: SimpleNamespace(shape=s))
        dec = QuestionDecomposer(llm, retries=0, router=router, intersect=True, intersect_split="llm")
        try:
            dec.decompose(Node(question=QUESTION[lang]), QUESTION[lang], lang)
        except Exception:  # the scripted reply is no valid split; only the request matters here
            pass
    intersect = {"en": "Which actor was born in Busan and also directed the film Blue Night?",
                 "ko": "부산에서 태어났고 영화 푸른 밤을 감독한 배우는 누구인가?"}[lang]
    dec = QuestionDecomposer(llm, retries=0, router=SimpleNamespace(route=lambda q: SimpleNamespace(shape="chain")),
                             intersect=True, intersect_split="llm")
    try:
        dec.decompose(Node(question=intersect), intersect, lang)
    except Exception:
        pass
    evaluator_backend, evaluator_llm = capturing({})
    try:
        QueryEvaluator(evaluator_llm).evaluate(Node(question="q"), QUESTION[lang], "Guam [1].", lang,
                                               passages=[PASSAGE[lang]])
    except Exception:  # the scripted reply is no valid evaluation; only the request matters here
        pass
    rewriter = AnswerIntegrator(TrackedLLM(ScriptedLLM(default="Which cars cost that much?"), retries=0))
    rewriter.fill(Node(question="q"), "Which electric cars are sold in the [ANS_1] price range?",
                  {1: "The BMW i5 is sold in Korea from 98 million won for the eDrive40 to about 120 million won."},
                  lang)
    return backend.requests + evaluator_backend.requests + rewriter.llm.backend.requests + render_toq_order(lang)


def render_toq_order(lang: str) -> list[Request]:
    """A comparison node's reader, with its children's answers and the order line code writes for dates and
    numbers (option order_hints), in both reader styles."""
    cases = {
        "en": [("Which battle came first, the Battle of Guam or the Battle of Manila?",
                [("When was the Battle of Guam fought?", "21 July 1944"),
                 ("When was the Battle of Manila fought?", "3 February 1945")]),
               ("Which tower is taller, Namsan Tower or Lotte Tower?",
                [("How tall is Namsan Tower?", "236 m"), ("How tall is Lotte Tower?", "555 m")])],
        "ko": [("괌 전투와 마닐라 전투 중 어느 것이 먼저 일어났나요?",
                [("괌 전투는 언제 일어났나요?", "1944년 7월 21일"), ("마닐라 전투는 언제 일어났나요?", "1945년 2월 3일")]),
               ("남산타워와 롯데타워 중 어느 것이 더 높나요?",
                [("남산타워의 높이는?", "236 미터"), ("롯데타워의 높이는?", "555 미터")])],
    }[lang]
    requests: list[Request] = []
    for style in ("plain", "json"):
        backend, llm = capturing({"explanation": "e", "answer": "a"} if style == "json" else "a")
        reader = ResponseGenerator(llm, style=style)
        for question, subs in cases:
            hint = order_hint(question, subs, lang)
            assert hint, (question, subs)
            reader.respond(Node(question=question), question, question, [PASSAGE[lang]], lang, sub_answers=subs,
                           hint=hint)
        requests += backend.requests
    return requests


def render_check(lang: str) -> list[Request]:
    """auto on yes/no and which-one questions about two items (gaji/methods/check.py): the per-item yes/no and
    value reads, the description's resolve read, and the judgement of two different values."""
    questions = {
        "en": ["Are both the Battle of Guam and the Battle of Manila battles of World War II?",
               "Were the Battle of Guam and the Battle of Manila fought in the same country?",
               "Which battle was fought on an island, the Battle of Guam or the Battle of Manila?"],
        "ko": ["경복궁과 토지는 둘 다 조선 시대에 만들어졌나?", "경복궁과 토지는 같은 나라에서 만들어졌나?",
               "흥선대원군이 다시 지은 궁궐과 박경리가 쓴 대하소설은 같은 해에 완성되었나?"],
    }[lang]

    def reply(req: Request) -> str:
        user = req.messages[-1]["content"] if req.messages else ""
        return "Guam" if "Guam" in user or "경복궁" in user else "Philippines"

    llm = ScriptedLLM(default=reply)
    g = Gaji(llm=llm, retriever=ListRetriever(DOCS), settings=Settings(retries=0, k=2))
    for q in questions:
        g.ask(q, method="auto", options={}, parallel=False)
    return llm.requests


def render_intersection(lang: str) -> list[Request]:
    """auto on a Korean intersection question (gaji/methods/intersection.py): the second condition's read, the
    check's choice among the names both conditions' passages hold (a filter that finds nothing), then the one
    retrieval. Korean only: no English question is split."""
    if lang != "ko":
        return []
    llm = ScriptedLLM(default="모름")
    g = Gaji(llm=llm, retriever=ListRetriever(DOCS), settings=Settings(retries=0, k=2))
    g.ask("조선의 법궁 가운데 흥선대원군이 1867년에 다시 지은 궁궐은?", method="auto", options={}, parallel=False)
    return llm.requests


def shipped_methods() -> list[str]:
    """The methods gaji ships (not the test doubles other test modules register)."""
    return [n for n in METHODS.names() if METHODS.get(n).__module__.startswith("gaji.")]


def cases() -> dict[str, Callable[[str], list[Request]]]:
    out: dict[str, Callable[[str], list[Request]]] = {}
    for name in [*shipped_methods(), *recipes.RECIPES.names()]:
        out[name] = lambda lang, n=name: run_method(n, {}, lang)
    for method, options in VARIANTS:
        key = method + " " + json.dumps(options, sort_keys=True)
        out[key] = lambda lang, m=method, o=options: run_method(m, o, lang)
    for style in ("short", "long"):
        out[f"self_ask with a follow-up ({style})"] = (
            lambda lang, s=style: run_method("self_ask", {"style": s, "words": 40}, lang, llm=self_asking()))
    out["contregen with no passages"] = lambda lang: run_method("contregen", {"max_depth": 1}, lang, docs=[])
    out["expand"] = render_expand
    out["conversation"] = render_conversation
    out["eval-judge"] = render_eval_judge
    out["reask"] = render_reask
    out["toq-parts"] = render_toq_parts
    out["auto yes/no and which-one"] = render_check
    out["auto Korean intersection"] = render_intersection
    return out


def render_all() -> dict[str, list[str]]:
    """case/lang -> the sorted distinct requests, each as JSON text."""
    got: dict[str, list[str]] = {}
    for name, render in cases().items():
        for lang in LANGS:
            reqs = render(lang)
            got[f"{name} [{lang}]"] = sorted({json.dumps(request_record(r), ensure_ascii=False) for r in reqs})
    return got


def pack(rendered: dict[str, list[str]]) -> dict:
    """The snapshot file: each distinct text once ("texts"), each case's requests as lists of [role, text index]."""
    texts = sorted({c for reqs in rendered.values() for r in reqs for _, c in json.loads(r)})
    index = {t: i for i, t in enumerate(texts)}
    cases_ = {k: [[[role, index[c]] for role, c in json.loads(r)] for r in reqs] for k, reqs in sorted(rendered.items())}
    return {"texts": texts, "cases": cases_}


def unpack(snapshot: dict) -> dict[str, list[str]]:
    texts = snapshot["texts"]
    return {k: [json.dumps([[role, texts[i]] for role, i in r], ensure_ascii=False) for r in reqs]
            for k, reqs in snapshot["cases"].items()}


def test_every_prompt_renders_as_recorded():
    rendered = render_all()
    if os.environ.get("GAJI_WRITE_PROMPT_SNAPSHOT"):
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(json.dumps(pack(rendered), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    want = unpack(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    regenerate = ("if the change is deliberate, rewrite the snapshot: GAJI_WRITE_PROMPT_SNAPSHOT=1 pytest "
                  "tests/test_prompt_snapshot.py, and review its diff")
    new, gone = sorted(set(rendered) - set(want)), sorted(set(want) - set(rendered))
    assert not new and not gone, f"cases not in the snapshot: {new}; cases no longer rendered: {gone}; {regenerate}"
    for case in sorted(want):
        if rendered[case] != want[case]:
            extra = [r for r in rendered[case] if r not in want[case]]
            missing = [r for r in want[case] if r not in rendered[case]]
            a = json.loads(missing[0]) if missing else []
            b = json.loads(extra[0]) if extra else []
            diff = "\n".join(difflib.unified_diff(
                [f"{r}: {c}" for r, c in a], [f"{r}: {c}" for r, c in b], "recorded", "rendered", lineterm="", n=0))
            pytest.fail(f"{case}: {len(missing)} recorded request(s) no longer rendered, {len(extra)} new ones; "
                        f"first difference:\n{diff[:3000]}\n{regenerate}")


def test_the_cases_reach_every_method_and_both_languages():
    want = unpack(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    for name in shipped_methods():
        for lang in LANGS:
            assert want[f"{name} [{lang}]"], f"method {name} sent no request in {lang}"
    assert any("경복궁" in r for k, reqs in want.items() if k.endswith("[ko]") for r in reqs)
