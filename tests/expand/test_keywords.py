"""BIO keyword tagging over morphemes: labels from keywords, decoding, the LLM teacher."""
import pytest

from gaji.expand.keywords import (
    KeywordTeacher,
    Morpheme,
    TaggedQuery,
    bio_from_keywords,
    decode_bio,
    morphemes,
)
from gaji.expand.prompts import KEYWORD_SCHEMA
from gaji.llm.scripted import ScriptedLLM

Q = "송파구에서 대기오염경보가 발령되면 자동차 정비소는 무엇을 해야 하나?"


def test_korean_keywords_become_kb_ki_runs_over_kiwi_morphemes():
    toks = morphemes(Q, "ko")
    forms = [m.form for m in toks]
    assert forms[:2] == ["송파구", "에서"] and "경보" in forms
    labels, found = bio_from_keywords(Q, toks, ["대기오염경보가", "송파구", "자동차 정비소", "없는 말"])
    by = dict(zip(forms, labels))
    assert by["송파구"] == "KB" and by["에서"] == "O"
    i = forms.index("대기")
    assert labels[i : i + 3] == ["KB", "KI", "KI"]
    assert labels[i + 3] == "O"  # the particle 가 inside the teacher's keyword is left O
    assert found == ["대기오염경보가", "송파구", "자동차 정비소"]
    assert decode_bio(Q, toks, labels) == ["송파구", "대기오염경보", "자동차 정비소"]


def test_english_words_and_overlapping_keywords():
    q = "When was the Eiffel Tower built for the World's Fair?"
    toks = morphemes(q)
    labels, _ = bio_from_keywords(q, toks, ["Eiffel Tower", "tower", "world's fair"])
    assert decode_bio(q, toks, labels) == ["Eiffel Tower", "World's Fair"]  # "tower" overlaps the longer one


def test_decode_handles_stray_ki_and_adjacent_keywords():
    q = "ab cd ef"
    toks = [Morpheme("ab", "W", 0, 2), Morpheme("cd", "W", 3, 5), Morpheme("ef", "W", 6, 8)]
    assert decode_bio(q, toks, ["KI", "KI", "O"]) == ["ab cd"]
    assert decode_bio(q, toks, ["KB", "KB", "KI"]) == ["ab", "cd ef"]
    assert decode_bio(q, toks, ["O", "O", "O"]) == []


def test_tagged_query_roundtrip_and_validation():
    toks = morphemes("경복궁은 어디?", "ko")
    labels, found = bio_from_keywords("경복궁은 어디?", toks, ["경복궁"])
    tq = TaggedQuery("경복궁은 어디?", toks, labels, found, "ko")
    back = TaggedQuery.from_dict(tq.to_dict())
    assert back.labels == labels and back.morphemes == toks
    bad = tq.to_dict()
    bad["labels"] = ["X"] * len(labels)
    with pytest.raises(ValueError):
        TaggedQuery.from_dict(bad)


def test_teacher_asks_the_llm_in_the_query_language():
    llm = ScriptedLLM([(r"키워드|keywords", {"keywords": ["대기오염경보", "정비소"]})])
    tq = KeywordTeacher(llm).label(Q)
    assert tq.lang == "ko" and "KB" in tq.labels
    assert llm.requests[0].json_schema == KEYWORD_SCHEMA
    assert "[질문]" in llm.requests[0].messages[-1]["content"]
    assert decode_bio(Q, tq.morphemes, tq.labels) == ["대기오염경보", "정비소"]
    en = ScriptedLLM([(r".*", {"keywords": ["Eiffel Tower"]})])
    tq2 = KeywordTeacher(en).label("Who built the Eiffel Tower?")
    assert tq2.lang == "en" and "[Question]" in en.requests[0].messages[-1]["content"]
