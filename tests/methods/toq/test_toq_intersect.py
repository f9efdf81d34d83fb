"""Intersection questions: the detector, the intersect prompt's parser, the routed decomposer's third shape and the
tree deciding an intersection by code when its children agree."""
from __future__ import annotations

import numpy as np
import pytest
from toq_helpers import OverlapRetriever, make_ctx, question_of, routed_llm

from gaji.index.dense import EMBEDDER_FACTORIES, Embedder
from gaji.llm.tracked import TrackedLLM
from gaji.methods.toq.prompts import PROMPTS
from gaji.methods.toq.decomposer import QuestionDecomposer, parse_intersect
from gaji.methods.toq.intersect import agree, detect, split
from gaji.methods.toq.method import ToQ
from gaji.methods.toq.router import ShapeRouter
from gaji.methods.toq.tree import DependencyError
from gaji.types import Node

# -- the detector ---------------------------------------------------------------------------------------------
KO_INTERSECTIONS = [  # the Korean set's dev part, and one written for the 이자 form
    ("명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?", "conjoined"),
    ("배재학당 출신으로 아펜젤러 선교사의 옥중 지원을 받았고, 김영삼이 2007년 인터뷰에서 ‘나라를 건국한 국부’라고 평가한 인물은?",
     "conjoined"),
    ("2010년 한나라당 서울시장 후보 경선에서 오세훈과 맞붙은 경쟁자 가운데 2015년 여성 최초로 국회 외교통일위원장에 선출된 사람은?",
     "set-filter"),
    ("체스에서 폰이 프로모션으로 바뀔 수 있는 기물 가운데 킹과 함께 캐슬링에 쓰이는 것은?", "set-filter"),
    ("2007년 대통합민주신당 대선 경선 후보로 결정된 다섯 명 가운데 이화여자대학교 기숙사 사감을 지낸 사람은?", "set-filter"),
    ("소설 『겨울 항구』의 작가이자 영화 『푸른 밤』의 감독인 사람은 누구인가?", "conjoined"),
]
KO_OTHERS = [  # comparisons, bridges and hybrids of the dev part (the two bridges' -고 is inside one clause)
    "갤럭시 S8과 갤럭시 S7 엣지 중 배터리 용량이 더 큰 것은?",
    "알렉산더 헤이그와 쇼와 천황 중 누가 먼저 태어났나?",
    "갤럭시 S8과 갤럭시 노트5는 둘 다 micro SD 카드로 저장 용량을 늘릴 수 있나?",
    "드라마 《아이리스》와 《별에서 온 그대》 중 최고 시청률이 더 높았던 드라마는?",
    "천안함 침몰 원인을 두고 박선원 박사가 출연한 라디오 시사 프로그램의 진행자가 1997년부터 유학한 대학은?",
    "2010년 동계 올림픽 국내 후보 도시 선정에서 무주를 제치고 뽑힌 도시의 스페셜올림픽 유치 발표 때 성화를 전달한 캘리포니아 주지사는?",
    "2010년 서울시장 선거에서 개표 초반 앞서다가 오세훈에게 역전당한 후보의 남편 이름은?",
    "빅뱅 멤버 중 가장 먼저 뮤지컬에 출연한 사람과, 해동검도 4단 사범증을 가진 제국의 아이들 멤버 중 누가 먼저 아이돌 그룹으로 데뷔했나?",
    "서울에서 태어났고, 그 사람이 처음 출연한 드라마는?",  # "그 사람": the second clause points back (a chain)
    "서울에서 공부하고 있는 학생은?",  # "-고 있는": one predicate
]


@pytest.mark.parametrize("question,cue", KO_INTERSECTIONS)
def test_detect_korean_intersections(question, cue):
    assert detect(question, "ko") == cue


@pytest.mark.parametrize("question", KO_OTHERS)
def test_detect_no_korean_comparison_or_bridge(question):
    assert detect(question, "ko") == ""


@pytest.mark.parametrize("question,cue", [
    ("Which actor was born in Seoul and also directed Oldboy?", "conjoined"),
    ("Who was born in 1842 and served as prime minister in 1894?", "conjoined"),
    ("Who both wrote Dune and directed Alien?", "both"),
    ("What is the river that flows through Paris and that ends in Le Havre?", "relative-and"),
    ("Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?",
     "conjoined"),  # HotpotQA dev
    ("Who was born first, Park Chan-wook or Bong Joon-ho?", ""),
    ("Are Jindo and Sapsali both dog breeds?", ""),
    ("Where was the director of Oldboy born?", ""),
    # HotpotQA dev bridges: a title's "and", and two clauses about someone the question does not ask for
    ("What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?", ""),
    ("What distinction is held by the former NBA player who was a member of the Charlotte Hornets during their "
     "1992-93 season and was head coach for the WNBA team Charlotte Sting?", ""),
])
def test_detect_english(question, cue):
    assert detect(question, "en") == cue


# -- the split by code ---------------------------------------------------------------------------------------
KO_SPLITS = [  # every form of the Korean set's dev part, the gold decomposition's two constraints
    ("명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?",
     ["명성황후의 후원으로 돈령부 도정에 오른 유학자는?", "고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?"]),
    ("배재학당 출신으로 아펜젤러 선교사의 옥중 지원을 받았고, 김영삼이 2007년 인터뷰에서 ‘나라를 건국한 국부’라고 평가한 인물은?",
     ["배재학당 출신으로 아펜젤러 선교사의 옥중 지원을 받은 인물은?",
      "김영삼이 2007년 인터뷰에서 ‘나라를 건국한 국부’라고 평가한 인물은?"]),
    ("2010년 한나라당 서울시장 후보 경선에서 오세훈과 맞붙은 경쟁자 가운데 2015년 여성 최초로 국회 외교통일위원장에 선출된 사람은?",
     ["2010년 한나라당 서울시장 후보 경선에서 오세훈과 맞붙은 경쟁자들은?", "2015년 여성 최초로 국회 외교통일위원장에 선출된 사람은?"]),
    ("2007년 대통합민주신당 대선 경선 후보로 결정된 다섯 명 가운데 이화여자대학교 기숙사 사감을 지낸 사람은?",  # 명: no 들
     ["2007년 대통합민주신당 대선 경선 후보로 결정된 다섯 명은?", "이화여자대학교 기숙사 사감을 지낸 사람은?"]),
    ("엑스박스 360으로 나온 게임 가운데 스와트 4에 쓰였던 언리얼 엔진 2.5를 크게 수정해 사용한 게임은?",  # Kiwi: 가운데 a name
     ["엑스박스 360으로 나온 게임들은?", "스와트 4에 쓰였던 언리얼 엔진 2.5를 크게 수정해 사용한 게임은?"]),
    ("펜더의 3대 비인기 기타로 꼽히는 모델 가운데 펜더사 최초의 좌우 비대칭 일렉트릭 기타는?",  # a filter without a clause
     ["펜더의 3대 비인기 기타로 꼽히는 모델들은?", "펜더사 최초의 좌우 비대칭 일렉트릭 기타는?"]),
    ("테드 번디가 사귄 여성 가운데 1973년 여름 캘리포니아행 공화당 출장 때 다시 관계를 이어간 사람은?",
     ["테드 번디가 사귄 여성들은?", "1973년 여름 캘리포니아행 공화당 출장 때 다시 관계를 이어간 사람은?"]),
    # written: 이자 (a copula), a present verb, 중에서 and a bare 것 named by the set's noun
    ("소설 『겨울 항구』의 작가이자 영화 『푸른 밤』의 감독인 사람은 누구인가?",
     ["소설 『겨울 항구』의 작가인 사람은 누구인가?", "영화 『푸른 밤』의 감독인 사람은 누구인가?"]),
    ("부산에서 축구를 하고, 서울에서 노래하는 사람은?", ["부산에서 축구를 하는 사람은?", "서울에서 노래하는 사람은?"]),
    ("오세훈과 맞붙은 경쟁자 중에서 최초로 서울시장이 된 사람은?", ["오세훈과 맞붙은 경쟁자들은?", "최초로 서울시장이 된 사람은?"]),
    ("넥센이 뽑은 투수 가운데 두산과의 경기에서 완봉한 것은?", ["넥센이 뽑은 투수들은?", "두산과의 경기에서 완봉한 투수는?"]),
]


@pytest.mark.parametrize("question,subs", KO_SPLITS)
def test_split_korean_intersections_by_code(question, subs):
    assert split(question, "ko") == subs


@pytest.mark.parametrize("question,subs", [
    ("Which actor was born in Seoul and also directed Oldboy?", ["Which actor was born in Seoul?", "Which actor directed Oldboy?"]),
    ("Who was born in 1842 and served as prime minister in 1894?",
     ["Who was born in 1842?", "Who served as prime minister in 1894?"]),
    ("Who both wrote Dune and directed Alien?", ["Who wrote Dune?", "Who directed Alien?"]),
])
def test_split_english_intersections_by_code(question, subs):
    assert split(question, "en") == subs


@pytest.mark.parametrize("question,lang", [
    # a clause with no name of the question fails the tree's names rule (the set's dev part, 019)
    ("체스에서 폰이 프로모션으로 바뀔 수 있는 기물 가운데 킹과 함께 캐슬링에 쓰이는 것은?", "ko"),
    ("서울에서 태어나셨고, 부산에서 노래하는 가수는?", "ko"),  # an honorific: no safe rewrite
    ("서울에서 태어났었고, 부산에서 노래하는 가수는?", "ko"),  # a double past
    ("갤럭시 S8과 갤럭시 S7 엣지 중 배터리 용량이 더 큰 것은?", "ko"),  # no intersection
    ("서울에서 태어났고, 그 사람이 처음 출연한 드라마는?", "ko"),  # a chain
    ("What is the river that flows through Paris and that ends in Le Havre?", "en"),  # relative clauses: not cut
    ("Who was born in Busan, directed Oldboy and wrote Alien?", "en"),  # three verb phrases with one "and"? unsure
    ("Who founded Smith and Sons and was born in Leeds and died in 1900?", "en"),  # two verb "and"s
    ("Where was the director of Oldboy born?", "en"),
    # HotpotQA dev: "Who helped organizations improve …?" keeps no name of the question (the names rule)
    ("Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?", "en"),
    ("Who was born first, Park Chan-wook or Bong Joon-ho?", "en"),
])
def test_split_none_when_unsure(question, lang):
    assert split(question, lang) is None


# -- agreement -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("answers,lang,expected", [
    (["김홍집", "김홍집"], "ko", "김홍집"),
    (["최익현", "면암 최익현"], "ko", "최익현"),
    (["최익현입니다", "최익현"], "ko", "최익현"),  # a copula is no difference
    (["나경원, 김충환", "나경원"], "ko", "나경원"),  # a list answer counts as its items
    (["Kim Hong-jip", "Prime Minister Kim Hong-jip"], "en", "Kim Hong-jip"),
    (["나경원, 김충환", "나경원과 김충환"], "ko", None),  # two common items: the model decides
    (["서울", "서울 출신 배우 김하늘"], "ko", None),  # a description that mentions the other is no match
    (["이승만", "알 수 없음"], "ko", None),
    (["Seoul", "Busan"], "en", None),
    (["김홍집"], "ko", None),
])
def test_agree(answers, lang, expected):
    got = agree(answers, lang)
    assert (got.answer if got else None) == expected


# -- the intersect prompt's parser ---------------------------------------------------------------------------
def test_parse_intersect_keeps_independent_questions():
    q = "Which actor was born in Busan and also directed Blue Night?"
    d = parse_intersect({"asked": "person", "questions": [
        "Which actor was born in Busan?", " ", "Who directed Blue Night?", "which actor was born in Busan", q]}, q, 4)
    assert d.type == "intersection" and d.model_type == "intersection" and not d.is_single
    assert [s.question for s in d.subquestions] == ["Which actor was born in Busan?", "Who directed Blue Night?"]
    assert all(not s.depends_on for s in d.subquestions) and d.waves == [[0, 1]]


@pytest.mark.parametrize("questions,problem", [
    (["Which actor was born in Busan?", "What did [ANS_1] direct?"], "answer slot"),
    (["Which actor was born in Busan?"], "fewer than two"),
    (["Which actor was born in Busan?", "which actor was born in Busan?"], "fewer than two"),
])
def test_parse_intersect_rejects_unusable_answers(questions, problem):
    with pytest.raises(DependencyError, match=problem):
        parse_intersect({"asked": "person", "questions": questions}, "Which actor … ?", 4)


def test_intersect_shots_parse_in_both_languages():
    import json

    for lang, p in PROMPTS.items():
        for user, answer in p.intersect.shots:
            q = user.split(":", 1)[1].strip()
            assert detect(q, lang)  # every shot is an intersection to the detector
            d = parse_intersect(json.loads(answer), q, 4)
            assert d.type == "intersection" and len(d.subquestions) == 2


# -- the routed decomposer -----------------------------------------------------------------------------------
FAKE_ID = "test/toq-intersect-embedder"


class CueEmbedder(Embedder):
    """[1, 0] for a question with ' or ' / ' 중 ' followed by 누가 / 더 (a comparison), else [0, 1]."""

    model_id, dim = FAKE_ID, 2

    def embed_queries(self, texts):
        return np.array([[1.0, 0.0] if (" or " in t or " 중 누가" in t or " 더 " in t) else [0.0, 1.0] for t in texts],
                        np.float32)

    embed_passages = embed_queries


EMBEDDER_FACTORIES[FAKE_ID] = CueEmbedder
ROUTER = ShapeRouter(np.array([4.0, -4.0]), 0.0, FAKE_ID)
KO_Q = "명성황후의 후원으로 돈령부 도정에 올랐고, 고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?"
SUB_A = "명성황후의 후원으로 돈령부 도정에 오른 유학자는 누구인가요?"
SUB_B = "고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는 누구인가요?"
CODE_A = "명성황후의 후원으로 돈령부 도정에 오른 유학자는?"  # the same split, cut by code
CODE_B = "고종이 정도전의 복권을 강행할 때 강하게 반발한 유학자는?"


def intersect_reply(u):
    return {"asked": "유학자", "questions": [SUB_A, SUB_B]}


def test_routed_decomposer_asks_the_intersect_prompt_only_when_enabled():
    llm = routed_llm({"intersect": intersect_reply,
                      "chain": lambda u: {"hidden": "돈령부 도정에 오른 유학자", "first": SUB_A,
                                          "then": "[ANS_1]은 고종이 정도전의 복권을 강행할 때 반발했나요?"}})
    node = Node(question=KO_Q)
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER, intersect=True,
                           intersect_split="llm").decompose(node, KO_Q, "ko")
    assert d.prompt == "intersect" and d.cue == "conjoined" and d.route.shape == "chain" and d.split == "llm"
    assert d.type == "intersection" and [s.question for s in d.subquestions] == [SUB_A, SUB_B]
    assert node.calls[-1].purpose == "decompose-intersect"
    assert set(llm.requests[-1].json_schema["required"]) == {"asked", "questions"}
    assert llm.requests[-1].messages[-1]["content"] == f"질문: {KO_Q}"
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER).decompose(Node(), KO_Q, "ko")
    assert d.prompt == "chain" and d.cue == ""  # the option is off: the chain prompt as before


def test_a_comparison_goes_to_the_compare_prompt_even_with_intersect_on():
    q = "Who was born in A and directed B, or who wrote C?"  # the router says compare first
    llm = routed_llm({"compare": lambda u: {"items": ["A", "C"], "question": "Who is [ITEM]?"}})
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER, intersect=True).decompose(Node(), q, "en")
    assert d.prompt == "compare" and d.cue == ""


def test_an_unusable_intersect_answer_falls_back_to_the_paper_prompt():
    llm = routed_llm({
        "intersect": lambda u: {"asked": "유학자", "questions": [SUB_A, "[ANS_1]은 정도전의 복권에 반발했나요?"]},
        "decompose": lambda u: {"type": "intersection", "subquestions": [
            {"question": SUB_A, "each": False}, {"question": SUB_B, "each": False}]}})
    node = Node(question=KO_Q)
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER, intersect=True,
                           intersect_split="llm").decompose(node, KO_Q, "ko")
    assert d.prompt == "paper" and "answer slot" in d.fallback and d.cue == "conjoined"
    assert [c.purpose for c in node.calls] == ["decompose-intersect", "decompose-intersect", "decompose"]


def test_the_code_split_makes_no_llm_call():
    def no_decompose_call(u):
        raise AssertionError("a decomposer prompt was asked")

    llm = routed_llm({"intersect": no_decompose_call, "chain": no_decompose_call, "decompose": no_decompose_call})
    node = Node(question=KO_Q)
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER, intersect=True).decompose(node, KO_Q, "ko")
    assert (d.prompt, d.cue, d.split, d.type) == ("intersect", "conjoined", "code", "intersection")
    assert [s.question for s in d.subquestions] == [CODE_A, CODE_B] and d.waves == [[0, 1]]
    assert node.calls == [] and llm.requests == []


def test_an_intersection_code_cannot_split_is_asked_as_a_chain():
    q = "체스에서 폰이 프로모션으로 바뀔 수 있는 기물 가운데 킹과 함께 캐슬링에 쓰이는 것은?"
    llm = routed_llm({"chain": lambda u: {"hidden": "", "first": "", "then": q}})
    node = Node(question=q)
    d = QuestionDecomposer(TrackedLLM(llm, backoff_s=0), router=ROUTER, intersect=True).decompose(node, q, "ko")
    assert (d.prompt, d.cue, d.split) == ("chain", "set-filter", "none")
    assert [c.purpose for c in node.calls] == ["decompose-chain"]  # not Prompt B.2


def test_intersect_split_is_checked():
    with pytest.raises(ValueError, match="intersect_split"):
        QuestionDecomposer(TrackedLLM(routed_llm({}), backoff_s=0), router=ROUTER, intersect=True, intersect_split="x")
    from gaji.errors import ConfigError

    with pytest.raises(ConfigError, match="intersect_split"):
        ToQ.Options(intersect_split="model")


# -- the tree ------------------------------------------------------------------------------------------------
DOCS = [("a", "최익현", "최익현은 명성황후의 후원으로 돈령부 도정에 올랐다."),
        ("b", "정도전", "고종이 정도전의 복권을 강행하자 면암 최익현이 강하게 반발하였다."),
        ("c", "흥선대원군", "흥선대원군은 고종의 아버지이다.")]


def tree_handlers(answers: dict[str, str], seen: list[str]):
    def answer(u):
        if "하위 질문의 답변" in u:  # the root's reader over its children
            seen.append(u)
            return "최익현"
        return answers[question_of(u)]

    return {"intersect": intersect_reply, "query": lambda u: question_of(u), "answer_plain": answer,
            "evaluate": lambda u: AssertionError("evaluate_root/subs/final are off")}


@pytest.mark.parametrize("child_answers,decided", [
    ({SUB_A: "최익현", SUB_B: "면암 최익현"}, True),
    ({SUB_A: "최익현", SUB_B: "흥선대원군"}, False),
])
def test_an_intersection_node_is_decided_by_code_when_its_children_agree(tmp_path, child_answers, decided):
    path = tmp_path / "router.json"
    ROUTER.save(path)
    seen: list[str] = []
    t = ToQ(k=2, evaluate_root=False, evaluate_subs=False, evaluate_final=False, integrate="none", decomposer="routed",
            router=str(path), intersect=True, intersect_decide=True, final_search=True, intersect_split="llm").run(
        KO_Q, make_ctx(routed_llm(tree_handlers(child_answers, seen)), OverlapRetriever(DOCS)))
    root = t.root
    assert root.data["decomposition"] == "intersection"
    assert root.data["route"]["prompt"] == "intersect" and root.data["route"]["intersect_cue"] == "conjoined"
    assert [c.answer for c in root.children] == [child_answers[SUB_A], child_answers[SUB_B]]
    assert all(c.data["depends_on"] == [] for c in root.children)  # independent: no [ANS_N]
    purposes = [c.purpose for c in root.calls]
    assert t.answer == "최익현"
    if decided:
        assert seen == [] and "answer" not in purposes  # no reader call at the root
        assert root.data["intersect_decided"] == {"answer": "최익현", "answers": ["최익현", "면암 최익현"]}
        assert "final_evidence" not in root.data  # nothing read: no final search either
        assert t.explanation == "모든 하위 질문의 답이 최익현(으)로 같다: 최익현; 면암 최익현."
        assert [f.text for f in root.display if f.label == "코드로 결정"] == \
            ["최익현 (모든 하위 답이 같음: 최익현 · 면암 최익현)"]
    else:
        assert len(seen) == 1 and purposes.count("answer") == 1  # the reader over the children's evidence
        assert "intersect_decided" not in root.data and root.data["final_evidence"]


def test_intersect_decide_off_keeps_the_reader(tmp_path):
    path = tmp_path / "router.json"
    ROUTER.save(path)
    seen: list[str] = []
    t = ToQ(k=2, evaluate_root=False, evaluate_subs=False, evaluate_final=False, integrate="none", decomposer="routed",
            router=str(path), intersect=True, intersect_decide=False, intersect_split="llm").run(
        KO_Q, make_ctx(routed_llm(tree_handlers({SUB_A: "최익현", SUB_B: "최익현"}, seen)), OverlapRetriever(DOCS)))
    assert len(seen) == 1 and "intersect_decided" not in t.root.data


def test_the_tree_splits_an_intersection_by_code_and_decides_it(tmp_path):
    path = tmp_path / "router.json"
    ROUTER.save(path)
    seen: list[str] = []
    handlers = tree_handlers({CODE_A: "최익현", CODE_B: "면암 최익현"}, seen)
    handlers["intersect"] = lambda u: AssertionError("no intersect prompt with intersect_split=code")
    t = ToQ(k=2, evaluate_root=False, evaluate_subs=False, evaluate_final=False, integrate="none", decomposer="routed",
            router=str(path), intersect=True, intersect_decide=True).run(
        KO_Q, make_ctx(routed_llm(handlers), OverlapRetriever(DOCS)))
    route = t.root.data["route"]
    assert (route["prompt"], route["intersect_cue"], route["intersect_split"]) == ("intersect", "conjoined", "code")
    assert [c.question for c in t.root.children] == [CODE_A, CODE_B]
    assert t.answer == "최익현" and seen == []
    assert not any(c.purpose.startswith("decompose") for n in t.root.walk() for c in n.calls)
