"""IRCoT control flow with a ScriptedLLM (replies in call order) and a word-overlap retriever."""
import pytest

from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.ircot import Collection, IRCoT
from gaji.registry import METHODS
from gaji.testing import ListRetriever
from gaji.types import Passage

DOCS = [
    ("d1", "One", "apple banana"),
    ("d2", "Two", "banana cherry"),
    ("d3", "Three", "cherry date"),
    ("d4", "Four", "date elder"),
    ("d5", "Five", "elder fig"),
]
Q = "Apple banana?"


def run(replies, k=2, docs=DOCS, question=Q, **opts):
    opts.setdefault("reader", "cot")
    it = iter(replies)
    llm = ScriptedLLM(default=lambda req: next(it))
    r = ListRetriever(docs)
    t = IRCoT(k=k, **opts).run(question, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=r))
    return t, llm, r


def test_registered_with_the_papers_defaults():
    assert METHODS.get("ircot") is IRCoT
    o = IRCoT.Options()
    assert (o.k, o.max_paragraphs, o.reader) == (4, 15, "direct")


def test_stops_when_a_sentence_says_answer_is():
    t, llm, r = run([" Cherry and date. Ignored second sentence.", " So the answer is: Fig.",
                     " Cherry and date. So the answer is: Fig.", " So the answer is: Fig."])
    assert t.status == "ok", t.error
    steps = [c for c in t.root.children if c.kind == "step"]
    assert [s.answer for s in steps] == ["Cherry and date.", "So the answer is: Fig."]
    # only the first sentence is kept and used as the next query; no retrieval after the answer
    assert r.queries == [Q, "Cherry and date."]
    assert steps[0].query == "Cherry and date." and steps[1].query == ""
    assert t.root.data["stop_reason"] == "answer"
    assert t.root.data["cot"] == ["Cherry and date.", "So the answer is: Fig."]
    assert t.answer == "Fig"
    assert t.root.data["reasoning"] == "Cherry and date. So the answer is: Fig."
    assert t.usage().calls == 4  # two steps + the reader's two sentences
    assert [c.purpose for c in t.root.calls] == ["answer", "answer"]
    # the second step continues the CoT so far after "A:"
    assert llm.requests[1].prompt.endswith("Q: Apple banana?\nA: Cherry and date.")
    assert llm.requests[0].stop[0] == "\n"


def test_paragraph_cap_dedup_and_order():
    # question -> d1, d2; step 1 "Cherry and date." -> d3 (new), d2 (duplicate); cap 3 is then full
    t, llm, r = run(["Cherry and date.", "Date and elder.", "So the answer is: X.", "So the answer is: X."],
                    max_paragraphs=3)
    s1, s2, s3 = t.root.children
    assert t.root.passage_ids == ["d1", "d2"]
    assert s1.data["retrieved_ids"] == ["d3", "d2"] and s1.passage_ids == ["d3"]
    assert "cap" in s2.data["note"] and s2.passage_ids == [] and s2.query == ""
    assert r.queries == [Q, "Cherry and date."]  # no retrieval once the cap is reached
    assert t.root.data["collected_ids"] == ["d1", "d2", "d3"]
    assert t.citations == ["d1", "d2", "d3"]
    assert t.retrieved_ids() == ["d1", "d2", "d3"]
    reader_prompt = llm.requests[-1].prompt
    test_part = reader_prompt[reader_prompt.rindex("\n\n\n"):]
    assert test_part.index("Title: One") < test_part.index("Title: Two") < test_part.index("Title: Three")


def test_collection_merges_same_content_and_keeps_oldest():
    c = Collection(cap=2)
    a = Passage(id="a", doc_id="a", title="T", text="same  text")
    a2 = Passage(id="a2", doc_id="a2", title="t", text="same text")
    b = Passage(id="b", doc_id="b", title="B", text="b")
    z = Passage(id="z", doc_id="z", title="Z", text="z")
    assert [p.id for p in c.add([a, a2, b])] == ["a", "b"]
    assert c.full and c.add([z]) == [] and [p.id for p in c.items] == ["a", "b"]


def test_max_steps_and_repetition():
    t, _, _ = run(["Cherry and date.", "Date and elder.", "Elder and fig.", " Reader says nothing", ""], max_steps=3)
    assert [c.kind for c in t.root.children] == ["step"] * 3 and t.root.data["stop_reason"] == "max_steps"
    # unparsable CoT reader output: the whole generation is the answer
    assert t.answer == "Reader says nothing."
    t, _, _ = run(["Cherry and date.", "Cherry and date.", "So the answer is: no"])
    assert t.root.data["stop_reason"] == "no_progress" and t.root.children[-1].status == "skipped"
    assert t.answer == "no"


def test_each_step_prompt_extends_the_previous_one():
    t, llm, _ = run(["Cherry and date.", "So the answer is: X.", "So the answer is: X."])
    p1, p2 = llm.requests[0].prompt, llm.requests[1].prompt
    assert p2.startswith(p1[: p1.rindex("\n\nQ:")])  # same demos and older paragraphs: a cacheable prefix


def test_demonstrations_gold_plus_m_distractors_and_budget():
    t, llm, _ = run(["So the answer is: X.", "So the answer is: X."], m=1)
    prompt = llm.requests[0].prompt
    first_demo = prompt.split("\n\n\n")[1]
    assert first_demo.count("Wikipedia Title:") == 2 + 1  # two gold + M=1 distractor
    assert "Q: In which town was the composer of the opera The Bartered Bride born?" in first_demo
    all_fit = t.root.children[0].data["demos"]
    t, llm, _ = run(["So the answer is: X.", "So the answer is: X."], context_tokens=700, stable_demos=False)
    few = t.root.children[0].data["demos"]
    assert 0 < few < all_fit
    assert len(llm.requests[0].prompt.split()) <= 700  # ScriptedLLM counts whitespace tokens
    t, _, _ = run(["So the answer is: X.", "So the answer is: X."], max_demos=1)
    assert t.root.children[0].data["demos"] == 1


def test_direct_reader():
    t, llm, _ = run(["So the answer is: Fig.", "Fig."], reader="direct")
    assert t.answer == "Fig"
    assert llm.requests[-1].prompt.split("\n\n\n")[1].rstrip().endswith("A: Litomyšl")
    assert t.root.data["reasoning"] == "So the answer is: Fig."


def test_bad_reader_option_is_a_usage_error_before_any_question():
    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="reader must be one of cot, direct, not 'bogus'"):
        run([], reader="bogus")
    with pytest.raises(ConfigError, match="reader"):
        IRCoT.parse_options({"reader": "bogus"})


def test_korean_question_gets_korean_prompt():
    docs = [("k1", "세종", "세종은 태종의 아들이다."), ("k2", "태종", "태종은 조선의 제3대 왕이다.")]
    t, llm, _ = run(["세종은 태종의 아들이다.", "따라서 정답은: 태종.", "따라서 정답은: 태종."],
                    docs=docs, question="세종의 아버지는 누구인가?")
    assert t.lang == "ko" and t.answer == "태종" and t.root.data["stop_reason"] == "answer"
    prompt = llm.requests[0].prompt
    assert "문서 제목: 세종" in prompt and "따라서 정답은:" in prompt and "Wikipedia Title:" not in prompt


def test_llm_failure_is_reported_and_the_run_returns():
    llm = ScriptedLLM(default=RuntimeError("boom"))
    t = IRCoT(k=2).run(Q, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=ListRetriever(DOCS)))
    assert t.status == "failed" and "boom" in t.error
    assert t.root.children[0].status == "failed"
    assert t.usage().failed_calls == 1


@pytest.mark.parametrize("reply", ["", "   "])
def test_empty_generation_ends_reasoning(reply):
    t, _, _ = run([reply, "So the answer is: Z."])
    assert t.root.data["stop_reason"] == "no_progress" and t.answer == "Z"


def test_a_step_stops_at_the_first_sentence_and_resumes_after_initials():
    # ScriptedLLM applies the step's ". " stop: "It was made by F" -> not a sentence end -> resume
    t, llm, _ = run([" It was made by F. W. Murnau in 1922. More text.", " W. Murnau in 1922. More.",
                     " Murnau in 1922. More.", "So the answer is: 1922", "So the answer is: 1922."])
    s1 = t.root.children[0]
    assert s1.answer == "It was made by F. W. Murnau in 1922."
    assert [c.purpose for c in s1.calls] == ["reason"] * 3
    assert ". " in llm.requests[0].stop and llm.requests[1].prompt.endswith("A: It was made by F.")
    assert t.root.children[1].answer == "So the answer is: 1922." and t.answer == "1922"


def test_demonstrations_are_planned_once_for_a_full_collection():
    replies = ["Cherry and date.", "Date and elder.", "So the answer is: X.", "So the answer is: X."]
    t, llm, _ = run(replies, context_tokens=1500)
    planned = t.root.data["demos_planned"]
    assert 0 < planned < 9
    assert [s.data["demos"] for s in t.root.children] == [planned] * 3
    # every step and the CoT reader share the header + demonstrations prefix (cached by the backend)
    prompts = [r.prompt for r in llm.requests]
    prefix = prompts[0][: prompts[0].rindex("\n\n\n")]
    assert all(p.startswith(prefix) for p in prompts)
    # refitting at every step would have used more demonstrations at first
    t, _, _ = run(replies, context_tokens=1500, stable_demos=False)
    assert t.root.children[0].data["demos"] > planned


def test_cot_reader_writes_the_chain_sentence_by_sentence_and_stops_at_the_answer():
    from cot_helpers import continuation

    chain = "Cherry and date. So the answer is: Fig. So the answer is: Fig. So the answer is: Fig."
    model = continuation(chain)
    llm = ScriptedLLM(default=lambda req: " So the answer is: Fig." if len(llm.requests) == 1 else model(req))
    t = IRCoT(k=2, reader="cot").run(Q, RunContext(llm=TrackedLLM(llm, backoff_s=0), retriever=ListRetriever(DOCS)))
    assert t.root.data["reasoning"] == "Cherry and date. So the answer is: Fig." and t.answer == "Fig"
    assert [c.output for c in t.root.calls] == [" Cherry and date", " So the answer is: Fig"]


def test_direct_reader_fits_its_own_demonstrations():
    t, llm, _ = run(["So the answer is: Fig.", "Fig."], reader="direct", context_tokens=1500)
    assert t.root.data["demos_planned"] < t.root.data["reader_demos"]


KO_DOCS = [("ko-h", "훈민정음", "훈민정음은 세종이 1443년에 창제하고 1446년에 반포한 문자 체계이다."),
           ("ko-s", "세종", "세종은 조선의 제4대 국왕으로 1418년부터 1450년까지 재위하였다.")]
KO_Q = "훈민정음은 몇 년에 반포되었나요?"


def test_korean_answer_marker_stops_and_the_direct_reader_answers_with_the_span():
    # the demo's one-hop question on the chain: step 1 states the answer (IRCoT retrieves with it, as the paper
    # does), step 2 says "따라서 정답은:" and reasoning stops there (no retrieval with it); the direct reader's
    # span is the answer, not the marker's text
    t, llm, r = run(["훈민정음은 1446년에 반포되었다.", "따라서 정답은: 1446년.", "1446년"],
                    docs=KO_DOCS, question=KO_Q, reader="direct")
    assert t.status == "ok", t.error
    assert t.root.data["stop_reason"] == "answer" and r.queries == [KO_Q, "훈민정음은 1446년에 반포되었다."]
    assert t.answer == "1446년" and t.usage().calls == 3


@pytest.mark.parametrize("echo, question, docs", [
    ("훈민정음은 몇 년에 반포되었나요?", KO_Q, KO_DOCS),
    ("훈민정음은  몇 년에 반포되었나요", KO_Q, KO_DOCS),
    ("Which fruit follows cherry?", Q, DOCS),
    ("apple, banana", Q, DOCS),
])
def test_a_step_that_asks_or_restates_the_question_ends_reasoning(echo, question, docs):
    t, _, r = run([echo, "따라서 정답은: X.", "X"], docs=docs, question=question, reader="direct")
    steps = [c for c in t.root.children if c.kind == "step"]
    assert len(steps) == 1 and steps[0].status == "skipped" and t.root.data["stop_reason"] == "no_progress"
    assert r.queries == [question]  # the echo was not searched: it finds what the question found
    assert t.usage().calls == 2 and t.answer  # one step, then the reader answers from the collected paragraphs


READ_ALONG = [
    ("y1", "The Young Ones", "The Young Ones is a British sitcom broadcast from 1982 to 1984. Shown on BBC2, it "
                             "featured anarchic humour and made household names of its writers."),
    ("y2", "Ade Edmondson", "Ade Edmondson played Vyvyan in The Young Ones and later starred in Bottom."),
    ("y3", "Bottom", "Bottom is a British sitcom written by Rik Mayall and Ade Edmondson."),
]
YQ = "Which series featured an actor who also performed in The Young Ones?"


def test_a_step_that_recites_the_paragraph_the_last_one_recited_ends_reasoning():
    recital = ["The Young Ones is a British sitcom broadcast from 1982 to 1984.",
               "Shown on BBC2, it featured anarchic humour and made household names of its writers.",
               "Bottom"]  # the third reply is the reader's
    t, _, r = run(recital, k=1, docs=READ_ALONG, question=YQ, reader="direct", stop_on_recital=True)
    steps = [c for c in t.root.children if c.kind == "step"]
    assert len(steps) == 2 and steps[1].status == "skipped" and "recites" in steps[1].data["note"]
    assert t.root.data["stop_reason"] == "no_progress" and len(r.queries) == 2  # the recital was not searched
    assert t.answer == "Bottom" and t.usage().calls == 3
    # off (the default): the loop reads along to the step limit as the paper's does
    t, _, _ = run(recital[:2] + ["It ran on MTV in 1985 and after.", "Bottom"], k=1, docs=READ_ALONG, question=YQ,
                  reader="direct", max_steps=3)
    assert len([c for c in t.root.children if c.kind == "step"]) == 3 and t.root.data["stop_reason"] == "max_steps"


def test_facts_copied_from_different_paragraphs_are_reasoning():
    from gaji.methods.ircot import recited_from

    paragraphs = [Passage(id=i, doc_id=i, title=ti, text=tx) for i, ti, tx in READ_ALONG]
    assert recited_from("Ade Edmondson played Vyvyan in The Young Ones", paragraphs) == "y2"
    assert recited_from("bottom is a british SITCOM written by rik mayall", paragraphs) == "y3"
    assert recited_from("So the answer is: Bottom.", paragraphs) is None  # words of its own
    assert recited_from("Bottom is", paragraphs) is None  # too short to be a recital
    t, _, _ = run(["Ade Edmondson played Vyvyan in The Young Ones.", "Bottom is a British sitcom written by Rik "
                   "Mayall and Ade Edmondson.", "So the answer is: Bottom.", "Bottom"],
                  k=1, docs=READ_ALONG, question=YQ, reader="direct", stop_on_recital=True)
    assert t.root.data["stop_reason"] == "answer" and t.answer == "Bottom"
