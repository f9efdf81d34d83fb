"""The Appendix A LLM judge: prompts per kind and language, verdict recording, resume, limits, failures."""
from __future__ import annotations

import json
import re

from gaji.errors import LLMError
from gaji.expand.generator import Expansion
from gaji.expand.judge import ExpansionJudge, JudgeTask, expansion_tasks, keyword_tasks, run_judge, summarize
from gaji.expand.judge_prompts import judge_messages, question_set
from gaji.llm.scripted import ScriptedLLM, request_text

CHUNKS = {"c1": "경복궁은 1395년에 창건된 조선의 법궁이다.", "c2": "The Eiffel Tower was completed in 1889 in Paris."}
EXPS = {"c1": Expansion("c1", "경복궁의 창건", ["경복궁은 언제 지어졌나요?", "조선의 법궁은?", "경복궁을 지은 왕은?"], lang="ko"),
        "c2": Expansion("c2", "Pizza recipes", ["How to bake bread?", "Best pasta?", "Who sings opera?"], lang="en"),
        "gone": Expansion("gone", "t", ["q"])}


def _verdict(req) -> str:
    """pass when a word of the item starts like a word of the chunk (a stand-in for a real judge)."""
    text = req.messages[-1]["content"]
    chunk = text.split("[Chunk]: ", 1)[1].split("\n", 1)[0] if "[Chunk]: " in text else ""
    item = next(line for line in text.splitlines() if line.startswith(("[제목]", "[Title]", "[질문 세트]",
                                                                        "[Question set]", "[키워드]", "[Keywords]")))
    words = re.sub(r"</?q\d>", " ", item.split(": ", 1)[1]).split()
    ok = any(w[:3] in chunk for w in words if len(w) >= 3)
    if "[키워드]" in text or "[Keywords]" in text:
        ok = "-" not in item
    return json.dumps({"reasoning": "checked", "verdict": "pass" if ok else "fail"})


def test_prompts_follow_the_paper_and_the_language():
    ko = judge_messages("title", "ko", item="경복궁의 창건", chunk=CHUNKS["c1"])
    assert "chunk를 기반으로 생성된 제목이 적절한지 평가하는 전문가" in ko[0]["content"]
    assert "[정답 title (참고용)]: (없음)" in ko[1]["content"] and "[제목]: 경복궁의 창건" in ko[1]["content"]
    assert '"verdict"' in ko[1]["content"]
    en = judge_messages("questions", "en", item=question_set(["A?", "B?"]), reference="<q1>R?</q1>", chunk="x")
    assert "[Question set]: <q1>A?</q1> <q2>B?</q2>" in en[1]["content"] and "(for reference only)]: <q1>R?</q1>" in \
        en[1]["content"]
    assert "If even one question of the set" in en[1]["content"]
    kw = judge_messages("keywords", "ko", item="경복궁", query="경복궁은 언제?")
    assert "[질문]: 경복궁은 언제?" in kw[1]["content"] and "[키워드]: 경복궁" in kw[1]["content"]


def test_expansion_tasks_pair_items_with_chunks_and_references():
    ref = {"c1": Expansion("c1", "참고 제목", ["참고 질문?"])}
    tasks = expansion_tasks(CHUNKS, EXPS, ref)
    assert [(t.kind, t.id) for t in tasks] == [("title", "c1"), ("questions", "c1"), ("title", "c2"),
                                               ("questions", "c2")]  # "gone" has no chunk: skipped
    assert tasks[0].reference == "참고 제목" and tasks[1].reference == "<q1>참고 질문?</q1>" and tasks[2].reference == ""
    assert [t.kind for t in expansion_tasks(CHUNKS, EXPS, kinds=["questions"])] == ["questions", "questions"]


def test_run_judge_records_verdicts_resumes_and_limits(tmp_path):
    llm = ScriptedLLM([("", _verdict)])
    out = tmp_path / "v.jsonl"
    tasks = expansion_tasks(CHUNKS, EXPS) + keyword_tasks([{"query": "경복궁은 언제?", "keywords": ["경복궁"]},
                                                           {"query": "what?", "keywords": []}])
    s = run_judge(ExpansionJudge(llm), tasks, out, limit=1)
    assert {k: v["judged"] for k, v in s.items()} == {"title": 1, "questions": 1, "keywords": 1}
    n = len(llm.requests)
    s = run_judge(ExpansionJudge(llm), tasks, out)  # continues: only what is not judged yet
    assert len(llm.requests) == n + 3
    by_lang = s["title"].pop("by_lang")  # one Korean and one English chunk: pass rates per language as well
    assert s["title"] == {"judged": 2, "errors": 0, "pass_rate": 0.5, "tokens_per_item": s["title"]["tokens_per_item"],
                          "seconds_per_item": s["title"]["seconds_per_item"]}
    assert {k: v["judged"] for k, v in by_lang.items()} == {"ko": 1, "en": 1}
    assert sorted(v["pass_rate"] for v in by_lang.values()) == [0.0, 1.0]
    assert [json.loads(line)["lang"] for line in out.read_text(encoding="utf-8").splitlines()][:2] == ["ko", "ko"]
    assert s["questions"]["pass_rate"] == 0.5 and s["keywords"]["pass_rate"] == 0.5
    langs = {("ko" if "전문가" in r.messages[0]["content"] else "en") for r in llm.requests}
    assert langs == {"ko", "en"}
    run_judge(ExpansionJudge(llm), tasks, out)
    assert len(llm.requests) == n + 3  # all judged: nothing asked again


def test_a_failed_judge_call_is_an_error_not_a_verdict_and_is_retried_later(tmp_path):
    out = tmp_path / "v.jsonl"
    task = JudgeTask("title", "c1", "경복궁의 창건", chunk=CHUNKS["c1"], lang="ko")
    bad = ScriptedLLM([("", LLMError("server down"))])
    s = run_judge(ExpansionJudge(bad), [task], out)
    assert s["title"] == {"judged": 0, "errors": 1, "pass_rate": None, "tokens_per_item": None,
                          "seconds_per_item": None}
    good = ScriptedLLM([("", _verdict)])
    s = run_judge(ExpansionJudge(good), [task], out)
    assert len(good.requests) == 1 and s["title"]["judged"] == 1 and s["title"]["errors"] == 0
    assert summarize(out)["title"]["pass_rate"] == 1.0


def test_judge_cli_end_to_end(tmp_path, capsys):
    from gaji.cli.main import main

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": k, "text": t}, ensure_ascii=False) + "\n" for k, t in CHUNKS.items()),
                      encoding="utf-8")
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.corpus.readers import read_documents
    from gaji.index.sources import chunk_all

    docs, _ = read_documents([str(corpus)])
    ids = [c.id for c in chunk_all(docs, ChunkingConfig())]
    exp = tmp_path / "e.jsonl"
    exp.write_text("".join(json.dumps({**EXPS[k].to_dict(), "chunk_id": cid}, ensure_ascii=False) + "\n"
                           for k, cid in zip(("c1", "c2"), ids)), encoding="utf-8")
    out = tmp_path / "v.jsonl"
    verdict = json.dumps({"reasoning": "ok", "verdict": "pass"})
    rc = main(["expand", "judge", str(corpus), "--expansions", str(exp), "--out", str(out), "--what", "title",
               "--llm", f"scripted:{verdict}"])
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["title"]["judged"] == 2 and rep["title"]["pass_rate"] == 1.0 and "questions" not in rep
    assert main(["expand", "judge", "--out", str(out)]) == 2
    assert "nothing to judge" in capsys.readouterr().err
    assert main(["expand", "judge", str(corpus), "--expansions", str(exp), "--out", str(out), "--what", "titles",
                 "--llm", "scripted:x"]) == 2
    assert "--what: unknown kind(s) titles" in capsys.readouterr().err


def test_request_text_sees_the_chunk():  # the scripted judge above relies on it
    llm = ScriptedLLM([("", _verdict)])
    ExpansionJudge(llm).judge(JudgeTask("title", "c2", "Eiffel Tower", chunk=CHUNKS["c2"], lang="en"))
    assert "Eiffel Tower was completed" in request_text(llm.requests[0])
