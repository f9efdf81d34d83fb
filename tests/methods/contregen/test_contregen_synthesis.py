"""ConTReGen bottom-up synthesis: context budget, parallel = sequential, Korean prompts, citations."""
from __future__ import annotations

import random
import time

from contregen_fakes import CORPUS, QUESTION, Brain, WordRetriever, by_question, make_ctx, shape

from gaji.methods.prompts import common as common_prompts
from gaji.methods.contregen import prompts
from gaji.methods.contregen.method import ConTReGen

PLANS = {QUESTION: ["What music is played?", "What food is sold?", "When did it begin?"],
         "What music is played?": ["Who makes the drums?", "Who sings?"]}


def test_every_prompt_fits_the_context_budget():
    filler = " ".join(f"w{i}" for i in range(150))  # long passages: 150+ words each
    rows = [(i, t, f"{x} {filler}") for i, t, x in CORPUS]
    budget = 640  # the verifier's fixed prompt (two worked examples) is ~580 words; passages must still be cut
    ctx, llm = make_ctx(Brain(plans=PLANS), retriever=WordRetriever(rows))
    trace = ConTReGen(k=4, max_subquestions=3, max_depth=2, context_budget=budget).run(QUESTION, ctx)
    assert trace.status == "ok" and trace.answer
    sizes = [prompts.message_tokens(llm.count_tokens, r.messages) for r in llm.requests]
    assert max(sizes) <= budget, sizes
    # passages were left out to fit, and that is recorded where it happened
    dropped = [n.data["synthesis"]["passages_dropped"] for n in trace.root.walk() if "synthesis" in n.data]
    assert sum(dropped) > 0
    assert any("not judged" in v.get("reason", "") for n in trace.root.walk() for v in n.relevance.values())


def test_budget_is_capped_by_the_model_context():
    ctx, llm = make_ctx(Brain(plans=PLANS))
    llm.context_size = 900
    trace = ConTReGen(k=3, max_subquestions=3, max_depth=1, context_budget=10_000, answer_words=100).run(QUESTION, ctx)
    assert trace.status == "ok"
    for r in llm.requests:
        assert prompts.message_tokens(llm.count_tokens, r.messages) + r.max_tokens <= 900
    assert prompts.prompt_budget(ctx.llm, 10_000, 232) == 900 - 232 - 32


class Jittery(Brain):
    """Answers after a random short delay, so parallel nodes finish out of order."""

    def __call__(self, req):
        time.sleep(random.random() * 0.004)
        return super().__call__(req)


def test_parallel_and_sequential_runs_give_the_same_tree_and_answer():
    results = []
    for parallel in (True, False):
        ctx, llm = make_ctx(Jittery(plans=PLANS, irrelevant={"Norvik Harbour"}), parallel=parallel)
        trace = ConTReGen(k=3, max_subquestions=3, max_depth=2).run(QUESTION, ctx)
        results.append((shape(trace.root), trace.answer, trace.citations, trace.usage().calls, len(llm.requests)))
    assert results[0] == results[1]
    assert results[0][3] > 10  # a real tree was built


def test_citations_are_numbered_across_the_tree():
    ctx, _ = make_ctx(Brain(plans=PLANS))
    trace = ConTReGen(k=2, max_subquestions=3, max_depth=2).run(QUESTION, ctx)
    ranked = trace.root.data["verified_passage_ids"]
    drums = by_question(trace.root)["Who makes the drums?"]
    # a depth-2 summary cites its first passage by its tree-wide number (the scripted summariser cites the
    # first [n] it is shown); that number maps back to the same id in the ranked union
    assert drums.level == 2 and "drums" in drums.passage_ids
    n = ranked.index(drums.passage_ids[0]) + 1
    assert drums.answer.endswith(f"[{n}]")


def test_korean_question_gets_korean_prompts():
    corpus = [
        ("k1", "오로라 축제", "오로라 축제 는 매년 겨울 노르빅 에서 열린다"),
        ("k2", "축제 음악", "오로라 축제 음악 은 합창 과 북 으로 이루어진다"),
        ("k3", "노르빅 항구", "노르빅 항구 는 목재 를 실어 나른다"),
    ]
    q = "노르빅 오로라 축제 는 어떤가요?"
    brain = Brain(plans={q: ["축제 음악 은 무엇인가요?", "화성 의 날씨 는?"]},
                  verdicts={"축제 음악 은 무엇인가요?": "오로라 축제 음악 합창", "화성 의 날씨 는?": None},
                  irrelevant={"노르빅 항구"})
    ctx, llm = make_ctx(brain, retriever=WordRetriever(corpus))
    trace = ConTReGen(k=2, max_subquestions=2, max_depth=1).run(q, ctx)
    assert trace.lang == "ko" and trace.status == "ok"
    p = prompts.PROMPTS["ko"]
    ko_systems = {p.plan.system, p.verify.system, p.relevance.system, p.synth_system}
    assert {r.messages[0]["content"] for r in llm.requests} <= ko_systems
    with_docs = [r.messages[1]["content"] for r in llm.requests if "<documents>" in r.messages[1]["content"]]
    assert with_docs and all(common_prompts.PROMPTS["ko"].data_note in u for u in with_docs)
    assert by_question(trace.root)["화성 의 날씨 는?"].status == "skipped"
    assert trace.answer.startswith("FINAL from 1 notes")


def test_forced_language_overrides_detection():
    ctx, llm = make_ctx(Brain(), lang="ko")
    trace = ConTReGen(k=2, max_depth=1).run(QUESTION, ctx)
    assert trace.lang == "ko"
    assert all(r.messages[0]["content"] in (prompts.PROMPTS["ko"].plan.system, prompts.PROMPTS["ko"].synth_system) for r in llm.requests)
