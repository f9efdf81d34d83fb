"""Expansion at index time with a scripted LLM: prompts, accounting, resume after a crash, failures."""
from __future__ import annotations

import json

import pytest

from fakes_expand import expand_llm
from gaji.expand.generator import Expander, ExpansionStore, clean_title, expansion_key
from gaji.expand.prompts import EXPAND_SCHEMA, expand_messages
from gaji.llm.scripted import ScriptedLLM
from gaji.types import Chunk


def _chunks(n: int) -> list[Chunk]:
    out = []
    for i in range(n):
        if i % 2:
            out.append(Chunk(id=f"ko{i}", doc_id=f"ko{i}", title="민법", text=f"사람은 생존한 동안 권리 {i}번 주체가 된다.", lang="ko"))
        else:
            out.append(Chunk(id=f"en{i}", doc_id=f"en{i}", title="", text=f"Guam battle number {i} was fought in 1944.", lang="en"))
    return out


def test_prompts_follow_the_chunk_language():
    ko = expand_messages("김치는 전통 음식이다.", "ko", "김치")
    en = expand_messages("Kimchi is food.", "en")
    assert "제목" in ko[-1]["content"] and "[문서 제목]: 김치" in ko[-1]["content"]
    assert ko[-1]["content"].endswith("[Chunk]: 김치는 전통 음식이다.")
    assert "Questions" in en[-1]["content"] and "[Document title]" not in en[-1]["content"]
    # the worked example is a prefix shared by every chunk (prompt cache)
    assert ko[:3] == expand_messages("다른 조각", "ko")[:3]
    assert EXPAND_SCHEMA["properties"]["questions"]["minItems"] == 3


def test_expander_generates_title_and_three_questions_with_accounting(tmp_path):
    llm = expand_llm()
    store = ExpansionStore(tmp_path / "e.jsonl")
    res = Expander(llm).run(_chunks(4), store)
    assert res.generated == 4 and not res.failed and res.reused == 0
    e = res.expansions["ko1"]
    assert e.lang == "ko" and len(e.questions) == 3 and e.title.startswith("About 사람은")
    assert res.expansions["en0"].lang == "en" and res.expansions["en0"].questions[0] == "What is Guam?"
    # tokens and time are counted per chunk and in total
    assert e.prompt_tokens > 0 and e.completion_tokens > 0 and e.seconds >= 0
    st = res.stats()
    assert st["prompt_tokens"] == sum(x.prompt_tokens for x in res.expansions.values())
    assert st["generated"] == 4 and st["s_per_chunk"] is not None and st["slots"] == 4
    # the Korean chunk got the Korean prompt, the English chunk the English one
    langs = {("다음 문서 조각" in r.messages[-1]["content"]) for r in llm.requests}
    assert langs == {True, False}
    assert all(r.json_schema == EXPAND_SCHEMA for r in llm.requests)
    assert len(store.load()) == 4


def test_resume_after_a_crash_only_expands_what_is_left(tmp_path):
    chunks = _chunks(10)
    path = tmp_path / "e.jsonl"

    class Crash(BaseException):
        pass

    seen = []

    def crash_after_three(e):
        seen.append(e.chunk_id)
        if len(seen) == 3:
            raise Crash()

    llm1 = expand_llm()
    with pytest.raises(Crash):
        Expander(llm1).run(chunks, ExpansionStore(path), on_done=crash_after_three)
    done_before = ExpansionStore(path).load()
    assert 3 <= len(done_before) < 10
    # a crash mid-write leaves a torn last line: ignored
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"chunk_id": "en8", "title": "tor')
    llm2 = expand_llm()
    res = Expander(llm2).run(chunks, ExpansionStore(path))
    assert res.reused == len(done_before)
    assert res.generated == 10 - len(done_before)
    assert len(llm2.requests) == 10 - len(done_before)  # nothing finished is asked again
    assert set(res.expansions) == {c.id for c in chunks}
    assert set(ExpansionStore(path).load()) == {c.id for c in chunks}


def test_edited_chunk_or_other_model_is_expanded_again(tmp_path):
    chunks = _chunks(2)
    store = ExpansionStore(tmp_path / "e.jsonl")
    Expander(expand_llm()).run(chunks, store)
    edited = [chunks[0], Chunk(id=chunks[1].id, doc_id=chunks[1].doc_id, text=chunks[1].text + " 추가", lang="ko")]
    llm = expand_llm()
    res = Expander(llm).run(edited, store)
    assert res.reused == 1 and res.generated == 1
    other = expand_llm(name="other-model")
    res2 = Expander(other).run(edited, store)
    assert res2.generated == 2 and expansion_key(edited[0], "other-model") != expansion_key(edited[0], "scripted")


def test_failed_chunks_are_reported_not_stored_and_retried(tmp_path):
    chunks = _chunks(3)
    bad = chunks[1].text

    def reply(req):
        if bad in req.messages[-1]["content"]:
            return "not json at all"
        from fakes_expand import expansion_reply

        return expansion_reply(req)

    store = ExpansionStore(tmp_path / "e.jsonl")
    exp = Expander(ScriptedLLM([(r".*", reply)]))
    exp.llm.backoff_s = 0.0
    res = exp.run(chunks, store)
    assert [cid for cid, _ in res.failed] == [chunks[1].id]
    assert "JSON" in res.failed[0][1]
    assert set(store.load()) == {chunks[0].id, chunks[2].id}
    res2 = Expander(expand_llm()).run(chunks, store)
    assert res2.generated == 1 and res2.reused == 2 and not res2.failed


def test_time_limit_stops_and_rerun_continues(tmp_path):
    chunks = _chunks(6)
    store = ExpansionStore(tmp_path / "e.jsonl")
    res = Expander(expand_llm()).run(chunks, store, limit_s=0.0)
    assert res.generated == 0
    res = Expander(expand_llm()).run(chunks, store)
    assert res.generated == 6


def test_clean_title_keeps_one_sentence_and_store_rejects_garbage_mid_file(tmp_path):
    assert clean_title("  경복궁의 역사.  두 번째 문장. ") == "경복궁의 역사."
    assert clean_title("The tower. It is tall.") == "The tower."
    p = tmp_path / "e.jsonl"
    p.write_text('garbage\n{"chunk_id": "a", "title": "t", "questions": ["q?"]}\n', encoding="utf-8")
    from gaji.errors import InputError

    with pytest.raises(InputError) as ei:
        ExpansionStore(p).load()
    assert ":1" in str(ei.value)
    p.write_text(json.dumps({"chunk_id": "a", "title": "t", "questions": ["q?"]}) + "\n", encoding="utf-8")
    assert ExpansionStore(p).load()["a"].questions == ["q?"]
