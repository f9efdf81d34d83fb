"""A Korean bridge question split by code (gaji/methods/bridge.py): the split, the two hops, and auto taking the
second hop's answer (scripted LLM: control flow, not quality)."""
from __future__ import annotations

import json
from importlib import resources

import pytest

from gaji.corpus.shared_data import dataset_paths, find_data_dir, load_korquad_questions
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.methods.auto.method import Auto
from gaji.methods.base import RunContext
from gaji.methods.auto.features import shape_of
from gaji.methods.bridge import is_choice, parse_bridge
from gaji.testing import ListRetriever
from gaji.types import Trace

Q = "2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장이 태어난 도시는?"
DOCS = [
    ("bus", "서울 버스 개편", "2004년 서울특별시는 이명박 시장 때 대중교통 환승 할인을 도입하였다."),
    ("lee", "이명박", "이명박은 1941년 일본 오사카에서 태어났다. 서울특별시장을 지냈다."),
    ("osaka", "오사카", "오사카는 일본의 도시이다."),
]


def test_the_split_is_the_description_its_particle_and_the_rest():
    b = parse_bridge(Q, "ko")
    assert (b.description, b.particle, b.rest) == (
        "2004년 서울시민이 대중교통 환승 할인을 받게 된 정책을 편 당시 서울시장", "이", "태어난 도시는?")
    assert b.resolve_question().endswith("서울시장은 누구인가?")
    assert b.second_question("이명박") == "이명박이 태어난 도시는?" and b.second_question("오세훈") == "오세훈이 태어난 도시는?"
    owner = parse_bridge("2010년 서울시장 선거에서 개표 초반 앞서다가 오세훈에게 역전당한 후보의 남편 이름은?", "ko")
    assert owner.particle == "의" and owner.second_question("한명숙") == "한명숙의 남편 이름은?"
    place = parse_bridge("2008년 7월 한국인 관광객 박왕자 씨가 조선인민군의 총격으로 숨진 관광지구가 있는 산의 주봉은?", "ko")
    assert place.resolve_question().endswith("있는 산은 어디인가?") and place.second_question("금강산") == "금강산의 주봉은?"


def test_most_hand_written_bridges_split_and_the_other_types_do_not():
    def rows(kind):
        text = (resources.files("gaji") / "data" / "komultihop" / f"{kind}.jsonl").read_text("utf-8")
        return [json.loads(line)["question"] for line in text.splitlines()]

    bridges = [(q, parse_bridge(q, "ko")) for q in rows("bridging")]
    assert sum(b is not None for _, b in bridges) >= 0.9 * len(bridges)
    for q, b in bridges:
        if b:  # the two parts are the question's own words, in order
            assert q.startswith(b.description) and q.rstrip().endswith(b.rest) and len(b.description.split()) >= 3
    for kind in ("comparison", "hybrid", "intersection"):  # choices and yes/no questions are not bridges
        assert not any(parse_bridge(q, "ko") for q in rows(kind)), kind


@pytest.mark.parametrize("question, lang", [
    ("훈민정음은 몇 년에 반포되었나요?", "ko"),  # one hop
    ("박형식과 승리 중 누가 먼저 태어났나?", "ko"),
    ("Where was the mayor who introduced transit transfers in Seoul born?", "en"),
])
def test_what_is_no_bridge(question, lang):
    assert parse_bridge(question, lang) is None


def test_an_earlier_described_subject_is_split_when_the_last_one_asks_for_itself():
    # "…탄 기선의 이름은?" asks the ship's own name (one hop): the split is at the person who took it
    b = parse_bridge("세종이 아낀 학자로 1443년 새 문자를 왕에게 올린 인물이 1447년 명나라로 건너갈 때 탄 기선의 이름은?", "ko")
    assert b.description.endswith("왕에게 올린 인물") and b.particle == "이"
    assert b.rest == "1447년 명나라로 건너갈 때 탄 기선의 이름은?"


def test_an_object_or_a_dative_may_mark_the_described_entity():
    building = parse_bridge("오세훈이 2006년 선거에서 동대문 운동장과 함께 철거를 공약한 건물을 설계한 건축가는?", "ko")
    assert building.particle == "을" and building.rest == "설계한 건축가는?"
    assert building.second_question("세운상가") == "세운상가를 설계한 건축가는?"
    assert building.second_question("세운상가 건물") == "세운상가 건물을 설계한 건축가는?"
    loser = parse_bridge("치과의사로서 처음 사법시험에 합격한 정치인을 경선에서 이긴 전 의원에게 2007년 후보 자리를 넘겨준 사람은?", "ko")
    assert loser.particle == "에게" and loser.second_question("정동영") == "정동영에게 2007년 후보 자리를 넘겨준 사람은?"


def test_during_is_no_choice_but_a_choice_among_things_is():
    assert not is_choice("유엔 사무총장이 고등학생 때 미국 방문 중 만난 미국 대통령은?")
    assert parse_bridge("서한을 보낸 유엔 사무총장이 고등학생 때 미국 방문 중 만난 미국 대통령은?", "ko").particle == "이"
    for q in ("박형식과 승리 중 누가 먼저 태어났나?", "빅뱅 멤버 중 가장 먼저 뮤지컬에 출연한 사람은?",
              "드라마에 출연한 배우 중 상을 받은 사람은?", "드라마에 출연한 배우 가운데 상을 받은 사람은?",
              "갤럭시 S8과 갤럭시 노트5 중 화면이 더 큰 것은?"):
        assert is_choice(q), q


def test_the_title_of_a_described_work_is_one_hop():
    assert parse_bridge("2004년 송승헌과 김희선이 함께 출연했던 드라마의 제목은?", "ko") is None


def test_a_korean_bridge_that_reads_as_a_comparison_is_still_followed():
    q = "김구가 일기에서 이승만보다 더 존경한다고 적은 미국 대통령이 태어난 주는?"
    assert shape_of(q) == "compare" and parse_bridge(q, "ko") is not None
    docs = [("diary", "김구 일기", "김구는 일기에서 링컨을 이승만보다 더 존경한다고 적었다."),
            ("lincoln", "링컨", "링컨은 켄터키주에서 태어났다.")]
    ctx = RunContext(llm=TrackedLLM(_llm("링컨", "켄터키주", first="링컨", resolved="링컨"), retries=0, backoff_s=0),
                     retriever=ListRetriever(docs), parallel=False)
    t = Auto().run(q, ctx)
    assert t.answer == "켄터키주" and t.root.data["cascade"]["decision"] == "bridged"


def test_a_second_hop_that_restates_its_question_is_cut_to_what_follows():
    # cut off by the token limit mid-date, the restated question before it is no answer
    restated = "정동영이 검찰에 출두한 날은 2012년 7월 5"
    t = Auto().run(Q, _ctx(_llm("이명박", "이명박이 태어난 도시는 일본 오사카", first="서울")))
    assert t.answer == "일본 오사카"
    from gaji.methods.span import shape_answer
    assert shape_answer(restated, "정동영이 검찰에 출두한 날은?", [], "ko").answer == "2012년 7월 5"


def _llm(name: str, second: str, first: str, split: dict | None = None, resolved: str = "이명박") -> ScriptedLLM:
    """The chain prompt's `split`, the resolve read's `name`, the second hop's `second` (a question about
    `resolved`), and `first` for the one retrieval."""
    def reply(req):
        if req.messages is None:  # an escalation's completion prompt (the chain's reasoning)
            return first
        system, user = req.messages[0]["content"], req.messages[-1]["content"]
        if split is not None and "hidden" in system:
            return json.dumps(split)
        if "이름만 답하고" in system or "Give only the name" in system:
            return name
        if resolved in user:
            return second
        return first
    return ScriptedLLM(default=reply)


def _ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(DOCS), parallel=False)


def test_a_one_hop_short_answer_is_replaced_by_the_second_hop():
    t = Auto(bridge="short").run(Q, _ctx(_llm("이명박", "오사카", first="이명박")))
    c = t.root.data["cascade"]
    assert t.answer == "오사카" and c["decision"] == "bridged" and c["first_answer"] == "이명박"
    assert [n.question for n in t.root.children] == [parse_bridge(Q, "ko").resolve_question(), "이명박이 태어난 도시는?"]
    assert t.citations[0] == "lee" and "질문이 묘사한 개체를 먼저 찾고(이명박) 나머지를 물음" in t.root.stop.reason
    assert sorted(x.purpose for x in t.calls()) == ["answer", "answer", "compare"]
    assert [f.text for f in t.root.children[0].display] == ["가리키는 이름: 이명박"]
    assert Trace.from_json(t.to_json()).root.data["cascade"]["bridge"]["name"] == "이명박"


def test_with_policy_always_the_korean_split_goes_first_and_the_one_retrieval_call_is_saved():
    t = Auto().run(Q, _ctx(_llm("이명박", "오사카", first="서울")))
    c = t.root.data["cascade"]
    assert t.answer == "오사카" and c["decision"] == "bridged" and c["bridge_first"] and c["first_answer"] is None
    assert sorted(x.purpose for x in t.calls()) == ["answer", "compare"]  # the resolve read, the second hop
    assert "한 번 검색 답은 건너뜀" in t.root.stop.reason and t.citations[0] == "lee"
    # a split that finds no name: the one retrieval answers, and the split is not asked again
    t = Auto().run(Q, _ctx(_llm("모름", "오사카", first="부산")))
    c = t.root.data["cascade"]
    assert t.answer == "부산" and c["bridge"]["why"] == "no name" and "p_right" in c
    assert [x.purpose for x in t.calls()].count("compare") == 1  # one resolve read (the one route may re-ask)
    assert sum(1 for n in t.root.walk() if n.data.get("bridge_hop") == "resolve") == 1


def test_policy_short_keeps_an_answer_that_is_not_the_bridge_and_always_replaces_it():
    short = Auto(bridge="short").run(Q, _ctx(_llm("이명박", "오사카", first="서울")))
    assert short.root.data["cascade"]["bridge"]["answer"] == "오사카" and short.root.data["cascade"]["decision"] != "bridged"
    always = Auto(bridge="always").run(Q, _ctx(_llm("이명박", "오사카", first="서울")))
    assert always.answer == "오사카" and always.root.data["cascade"]["decision"] == "bridged"


def test_no_name_no_second_hop_and_the_option_and_low_effort_turn_it_off():
    t = Auto().run(Q, _ctx(_llm("모름", "오사카", first="서울")))
    assert t.root.data["cascade"]["bridge"]["why"] == "no name" and len(t.root.data["cascade"]["bridge"]["nodes"]) == 2
    assert not any(n.question == "이명박이 태어난 도시는?" for n in t.root.walk())
    for auto in (Auto(bridge="off"), Auto(effort="low")):
        r = auto.run(Q, _ctx(_llm("이명박", "오사카", first="서울")))
        assert "bridge" not in r.root.data["cascade"] and not any("bridge_hop" in n.data for n in r.root.walk())


def test_one_hop_korquad_questions_are_almost_never_split():
    """A one-hop question with a described subject is no bridge: the split would spend two calls to ask the
    entity's own name, or split at a word that names no entity ("…노아의 방주가 …")."""
    for q in ("1989년 2월 15일 여의도 농민 폭력 시위를 주도한 혐의로 지명수배된 사람의 이름은?",
              "2012년 중국에서 노아의 방주가 발견되었다는 보도를 한 방송사는 어디인가?",
              "육군사관학교에서 졸업한 헤이그가 제일 처음 소위로 발령받은 부대는 무엇이었나?"):
        assert parse_bridge(q, "ko") is None, q


STORY = ("갑은 을에게 부동산 거래를 위임했습니다. 출장 중 갑의 부동산에 홍수가 발생했고, 을은 갑과 연락이 닿지 않는 상황에서 "
         "갑의 부동산을 보호하기 위한 긴급 조치를 진행했습니다.\n갑이 을에게 부동산 거래를 위임했으나 위임 종료 후 긴급한 상황이 "
         "발생했을 때, 을은 어떤 의무를 가지는가?")


def test_a_question_after_a_story_or_a_description_that_asks_is_no_bridge():
    """A legal question after its facts (KoBLEX's shape) has no described subject: the "description" would run
    across the story's sentences. Nor does a stretch that holds a question word describe anything."""
    assert parse_bridge(STORY, "ko") is None
    assert parse_bridge("갑은 환지에 따른 분쟁을 조정하기 위해 "
                        "무엇을 구성해야 하며, 환지 처분과 관련된 토지 및 건물의 등기는 언제 이루어져야 하는가?", "ko") is None
    # the single sentence of a real bridge still splits
    assert parse_bridge("2004년 서울시민이 환승 할인을 받게 된 정책을 편 당시 서울시장이 태어난 도시는?", "ko") is not None


@pytest.mark.data
@pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")
def test_no_koblex_question_is_split():
    from gaji.eval.datasets import load_dataset

    assert [it.id for it in load_dataset("koblex").items if parse_bridge(it.question, "ko")] == []


@pytest.mark.data
@pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")
def test_few_korquad_one_hop_questions_split_and_none_of_the_first_hundred():
    """Each split one-hop question costs two more calls: KorQuAD's first 100 (the one-call target's questions) keep
    their one call, and at most 2.5 % of the first 2,000 split (1.9 % today, 2.4 % before modifiers were read in
    context)."""
    questions = [q["question"] for q in load_korquad_questions(dataset_paths("korquad")[0])][:2000]
    assert [q for q in questions[:100] if parse_bridge(q, "ko")] == []
    assert sum(parse_bridge(q, "ko") is not None for q in questions) <= 0.025 * len(questions)


def test_a_wrong_policy_is_a_clear_error():
    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="option bridge of method 'auto' must be one of off, short, always"):
        Auto(bridge="sometimes")


# -- an English bridge: split by the chain prompt (one call), then the same two hops ---------------------------------
EN_Q = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
EN_DOCS = [
    ("kiss", "Kiss and Tell (1945 film)", "Kiss and Tell is a 1945 comedy in which Shirley Temple plays Corliss Archer."),
    ("temple", "Shirley Temple", "Shirley Temple was an actress who later served as Chief of Protocol of the United "
                                  "States."),
]


def _en_llm(split: dict, name: str = "Shirley Temple", second: str = "Chief of Protocol",
            first: str = "Kiss and Tell"):
    return _llm(name, second, first, split=split, resolved="Shirley Temple")


def _en_ctx(llm) -> RunContext:
    return RunContext(llm=TrackedLLM(llm, retries=0, backoff_s=0), retriever=ListRetriever(EN_DOCS), parallel=False)


SPLIT = {"hidden": "the woman who portrayed Corliss Archer in the film Kiss and Tell",
         "first": "Who portrayed Corliss Archer in the film Kiss and Tell?",
         "then": "What government position was held by [ANS_1]?"}


def test_an_english_bridge_is_split_by_the_chain_prompt_and_followed():
    t = Auto().run(EN_Q, _en_ctx(_en_llm(SPLIT)))
    c = t.root.data["cascade"]
    assert t.answer == "Chief of Protocol" and c["decision"] == "bridged" and c["first_answer"] == "Kiss and Tell"
    assert c["bridge"]["split"] == "chain prompt" and c["bridge"]["name"] == "Shirley Temple"
    split_node, resolve, ask = t.root.children
    assert split_node.data["first"] == SPLIT["first"] and resolve.question == SPLIT["first"]
    assert ask.question == "What government position was held by Shirley Temple?" and t.citations[0] == "temple"
    # the cheap answer (re-asked: a title is the wrong shape for a position), the split, the two hops
    assert sorted(x.purpose for x in t.calls()) == ["answer", "answer", "compare", "decompose-chain", "reask"]
    assert [f.text for f in split_node.display] == [f"{SPLIT['first']} → {SPLIT['then']}"]
    assert "found the entity the question describes first (Shirley Temple)" in t.root.stop.reason


def test_a_second_hop_that_agrees_with_the_first_answer_says_so_rather_than_replaced():
    t = Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT, first="chief of protocol.")))
    c = t.root.data["cascade"]
    assert t.answer == "Chief of Protocol" and c["decision"] == "bridged"
    assert "it agrees with the first answer 'chief of protocol'" in t.root.stop.reason
    assert "replaced" not in t.root.stop.reason
    from gaji.methods.auto.method import cascade_reason
    assert "첫 답 'chief of protocol'과(와) 같은 답" in cascade_reason(c, "ko")
    # a different first answer is still said to be replaced
    other = Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT, first="Corliss Archer")))
    assert "replaced the first answer 'Corliss Archer'" in other.root.stop.reason


def test_the_english_second_hop_reads_only_the_passages_that_name_the_bridge_entity():
    other = ("merbold", "Ulf Merbold", "Ulf Merbold was the first West German citizen in space.")
    ctx = RunContext(llm=TrackedLLM(_en_llm(SPLIT), retries=0, backoff_s=0),
                     retriever=ListRetriever([*EN_DOCS, other]), parallel=False)
    t = Auto().run(EN_Q, ctx)
    ask = t.root.children[2]
    assert t.answer == "Chief of Protocol" and ask.data["naming"] == {"name": "Shirley Temple", "kept": 2, "of": 3}
    (call,) = [c for c in ask.calls if c.purpose == "answer"]
    prompt = " ".join(m["content"] for m in call.prompt)
    assert "Chief of Protocol of the United" in prompt and "Merbold" not in prompt
    assert "read the 2 of 3 passages that name Shirley Temple" in [f.text for f in ask.display]


def test_a_passage_names_an_entity_by_its_whole_name_or_its_telling_word():
    from gaji.methods.bridge import names_entity, naming
    from gaji.types import Passage

    def p(title, text):
        return Passage(id=title, doc_id=title, title=title, text=text)

    mccrumb = p("Sharyn McCrumb", "Sharyn McCrumb (born 1948) is an American writer.")
    novel = p("Bimbos of the Death Sun", "Bimbos of the Death Sun is a 1988 mystery novel by McCrumb.")
    astronaut = p("Ulf Merbold", "Ulf Merbold is the first West German citizen to have flown in space.")
    assert naming([astronaut, mccrumb, novel], "Sharyn McCrumb") == [mccrumb, novel]
    # a kind-of-thing word is not telling: "Province" names many provinces
    assert names_entity(p("Golestan", "Golestan is a province of Iran."), "Golestan Province")
    assert not names_entity(p("Fars", "Fars Province is in Iran."), "Golestan Province")
    # whole words only, and a passage that names nobody of it is none
    assert not names_entity(p("x", "The Atkinsons moved."), "Juan Atkins") and naming([astronaut], "Juan Atkins") == []


def test_an_english_question_that_names_everything_is_not_split():
    t = Auto().run(EN_Q, _en_ctx(_en_llm({"hidden": "", "first": EN_Q, "then": ""})))
    assert "bridge" not in t.root.data["cascade"] and t.answer == "Kiss and Tell"
    (split_node,) = [n for n in t.root.walk() if "bridge_hop" in n.data]
    assert split_node.data["why"] == "single"
    assert [f.text for f in split_node.display] == ["not split: the question names everything it asks about"]


def test_a_split_that_drops_the_questions_names_is_refused_after_its_retry():
    """The names rule is code's check on the model: a first hop about something the question never named loses the
    bridge, so the split is asked again and then given up; the cheap answer stands."""
    bad = {"hidden": "the woman", "first": "Who is the woman?", "then": "What government position was held by [ANS_1]?"}
    t = Auto().run(EN_Q, _en_ctx(_en_llm(bad)))
    (split_node,) = [n for n in t.root.walk() if "bridge_hop" in n.data]
    assert split_node.data["why"] == "refused" and len(split_node.calls) == 2
    assert all("invalid decomposition" in (c.error or "") for c in split_node.calls)
    assert t.answer == "Kiss and Tell" and "bridge" not in t.root.data["cascade"]


def test_a_second_answer_of_the_wrong_kind_for_the_whole_question_is_not_taken():
    q = "When was the actress who portrayed Corliss Archer in the film Kiss and Tell born?"
    split = {"hidden": "the actress who portrayed Corliss Archer in the film Kiss and Tell",
             "first": "Who portrayed Corliss Archer in the film Kiss and Tell?", "then": "When was [ANS_1] born?"}
    # effort high: split whatever the first answer's P(right) (a bare year reads as a sure answer at medium)
    t = Auto(effort="high").run(q, _en_ctx(_en_llm(split, second="Chief of Protocol", first="1928")))
    assert t.root.data["cascade"]["bridge"]["why"] == "wrong kind" and t.answer == "1928"
    right = Auto(effort="high").run(q, _en_ctx(_en_llm(split, second="April 23, 1928", first="1945")))
    assert right.answer == "April 23, 1928" and right.root.data["cascade"]["decision"] == "bridged"


def test_a_second_hop_that_answers_with_a_sentence_does_not_replace_a_short_first_answer():
    sentence = "Shirley Temple held the government position of Chief of Protocol of the United States"
    t = Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT, second=sentence, first="Chief of Protocol")))
    c = t.root.data["cascade"]
    assert t.answer == "Chief of Protocol" and c["decision"] != "bridged"
    assert c["bridge"]["answer"] == sentence and c["bridge"]["kept_first"] == "sentence"
    assert "the bridge's second hop answered with a sentence: first answer kept" in t.root.stop.reason
    from gaji.methods.auto.method import cascade_reason
    assert "연결 개체를 따라간 답이 문장이라 첫 답 유지" in cascade_reason(c, "ko")
    # a short second answer still replaces it, and a sentence replaces a first answer that is no name
    assert Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT, first="Corliss Archer"))).answer == "Chief of Protocol"
    long_first = "Kiss and Tell is a comedy film in which she played the lead"
    t = Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT, second=sentence, first=long_first)))
    assert t.root.data["cascade"]["decision"] == "bridged"


def test_an_english_question_with_no_bridge_marker_keeps_its_one_call():
    t = Auto().run("When was Shirley Temple born?", _en_ctx(_en_llm(SPLIT, first="1928")))
    assert len(t.calls()) == 1 and not any("bridge_hop" in n.data for n in t.root.walk())


def test_a_role_of_a_named_thing_marks_an_english_bridge():
    from gaji.methods.auto.features import bridge_marked, question_features

    for q in ("Where was the mother of Mohammed Bin Hamad born?", "Which award did the director of film Jo Jeeta Wohi "
              "Sikandar receive?", "Who is the maternal grandfather of John Woodville?"):
        assert bridge_marked(q), q
    assert not bridge_marked("When was Shirley Temple born?") and not bridge_marked("Who directed Oldboy?")
    # the text router's nesting feature stays what it was trained on
    assert question_features("Where was the mother of Mohammed Bin Hamad born?", p_compare=0.5)["nesting"] == 0


def test_a_sure_first_answer_is_not_split_at_medium_effort(monkeypatch):
    import gaji.methods.auto.method as auto_method

    monkeypatch.setattr(auto_method, "SPLIT_BELOW", {"medium": 0.0, "high": 1.01})
    t = Auto().run(EN_Q, _en_ctx(_en_llm(SPLIT)))
    assert not any("bridge_hop" in n.data for n in t.root.walk()) and "bridge" not in t.root.data["cascade"]
    assert Auto(effort="high").run(EN_Q, _en_ctx(_en_llm(SPLIT))).root.data["cascade"]["decision"] == "bridged"


def test_a_second_hop_that_names_what_the_whole_question_gives_is_not_taken():
    # the second hop "이명박이 태어난 도시는?" answered with the question's own city: no answer to the whole question
    t = Auto().run(Q, _ctx(_llm("이명박", "서울", first="오사카")))
    c = t.root.data["cascade"]
    assert c["bridge"]["why"] == "echoed" and c["decision"] != "bridged" and t.answer == "오사카"
