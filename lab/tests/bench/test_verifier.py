"""`gaji bench verifier`: plans read from ConTReGen traces, own/foreign probes, the real step-(i) prompt, scoring."""
from __future__ import annotations

import json

import pytest

from gaji_lab.bench.verifier import NeedProbe, NeedVerdict, build_probes, plans_from_run, render, run_probes, score
from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM


def _trace(qid, question, subs, lang="en", method="contregen"):
    root = {"question": question, "passage_ids": ["p1", "p2"],
            "children": [{"question": s, "kind": "sub"} for s in subs]}
    return {"id": qid, "trace": {"method": method, "lang": lang, "root": root,
                                 "passages": {"p1": {"id": "p1", "title": "Bellagio"}, "p2": {"id": "p2", "title": ""}}}}


def _write(tmp_path, records):
    (tmp_path / "traces.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                                           encoding="utf-8")
    return tmp_path


RUN = [
    _trace("a", "When was the Bellagio built?", ["When did construction of the Bellagio begin?",
                                                 "When did the Bellagio open?"]),
    _trace("b", "Who wrote Genesis?", ["Which rivers are named in Genesis 2?"]),
    _trace("c", "무궁화호는 언제 운행을 시작했나요?", ["무궁화호의 첫 운행 연도는?"], lang="ko"),
    _trace("d", "No plan here", []),
]


def test_plans_and_probes(tmp_path):
    plans = plans_from_run(_write(tmp_path, RUN))
    assert [p["id"] for p in plans] == ["a", "b", "c"]  # a root without sub-questions has nothing to probe
    assert plans[0]["titles"] == ["Bellagio"] and plans[2]["lang"] == "ko"
    probes = build_probes(plans)
    a = [p for p in probes if p.qid == "a"]
    assert [p.kind for p in a] == ["own", "own", "foreign"]  # b has one sub-question to lend
    assert a[2].sub == "Which rivers are named in Genesis 2?" and a[2].main == "When was the Bellagio built?"
    c_foreign = [p for p in probes if p.qid == "c" and p.kind == "foreign"]
    assert [p.sub for p in c_foreign] == ["When did construction of the Bellagio begin?"]  # the last borrows from the first
    assert build_probes(plans) == probes and build_probes(plans[:1]) == []


def test_bad_runs_are_named(tmp_path):
    with pytest.raises(ConfigError, match="no traces"):
        plans_from_run(tmp_path)
    # a torn last line (an interrupted run) is skipped, like every run reader does
    (tmp_path / "traces.jsonl").write_text('{"id": "a", "trace": {"root"\n', encoding="utf-8")
    assert plans_from_run(tmp_path) == []
    (tmp_path / "traces.jsonl").write_text('{"id": "a", "answer": "x"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="question a: not a trace record"):
        plans_from_run(tmp_path)
    _write(tmp_path, [_trace("a", "q", ["s"], method="toq")])
    with pytest.raises(ConfigError, match="ConTReGen"):
        plans_from_run(tmp_path)


def test_real_step_one_prompt_and_score(tmp_path):
    def rule(request):
        text = request.messages[-1]["content"]
        main = text.split("\n", 1)[0]
        sub = next(line for line in text.splitlines() if "sub-question:" in line or "하위 질문:" in line)
        same = ("Bellagio" in main and "Bellagio" in sub) or ("Genesis" in main and "Genesis" in sub) or (
            "무궁화호" in main and "무궁화호" in sub)
        return json.dumps({"main_topic": "m", "sub_topic": "s", "needed": same, "query": sub.split(":", 1)[1].strip() if same else ""},
                          ensure_ascii=False)

    probes = build_probes(plans_from_run(_write(tmp_path, RUN)))
    verdicts = run_probes(probes, TrackedLLM(ScriptedLLM([(r"(?s).*", rule)]), retries=0), 2)
    assert [v.probe for v in verdicts] == probes
    r = score(verdicts)
    assert r["kinds"]["own"]["needed_pct"] == 100.0 and r["kinds"]["foreign"]["needed_pct"] == 0.0
    assert r["gap_points"] == 100.0 and r["failed"] == 0
    assert "| planned for this question | 4 | 100.0 |" in render(r, "t")


def test_rubber_stamp_has_no_gap():
    p_own, p_for = NeedProbe("a", "own", "m", "s", []), NeedProbe("a", "foreign", "m", "t", [])
    r = score([NeedVerdict(p_own, True), NeedVerdict(p_for, True), NeedVerdict(p_for, None, error="x")])
    assert r["gap_points"] == 0.0 and r["failed"] == 1


def test_cli_writes_the_report(tmp_path, monkeypatch, capsys):
    from gaji.cli.main import main

    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    run = _write(tmp_path, RUN)
    reply = json.dumps({"main_topic": "m", "sub_topic": "s", "needed": True, "query": "q"})  # a rubber stamp
    out = tmp_path / "probe"
    assert main(["bench", "verifier", str(run), "--llm", f"scripted:{reply}", "--out", str(out)]) == 0
    assert "Gap: 0.0 points" in capsys.readouterr().out
    saved = json.loads((tmp_path / "probe.json").read_text(encoding="utf-8"))
    assert saved["model"] == "scripted" and saved["probes"] == 7 and len(saved["verdicts"]) == 7
    assert (tmp_path / "probe.md").read_text(encoding="utf-8").startswith("**")
    assert main(["bench", "verifier", str(run), "--limit", "1"]) != 0  # a clear error, not a traceback


class _WordGate:
    """A topic gate without embeddings: cosine 0.9 when sub and main name the same subject, else 0.1."""

    threshold = 0.5
    SUBJECTS = ("Bellagio", "Genesis", "무궁화호")

    def check(self, main, subs):
        from gaji.methods.contregen.topic_gate import GateVerdict

        out = []
        for s in subs:
            c = 0.9 if any(w in main and w in s for w in self.SUBJECTS) else 0.1
            out.append(GateVerdict(c, c >= self.threshold))
        return out


def test_topic_gate_alone_and_with_the_llm(tmp_path):
    from gaji_lab.bench.verifier import both, gate_verdicts

    probes = build_probes(plans_from_run(_write(tmp_path, RUN)))
    gv = gate_verdicts(probes, _WordGate())
    assert [v.probe for v in gv] == probes and all(v.cosine in (0.9, 0.1) for v in gv)
    g = score(gv)
    assert g["kinds"]["own"]["needed_pct"] == 100.0 and g["kinds"]["foreign"]["needed_pct"] == 0.0
    # the LLM keeps everything but fails once; the gate's rejection stands without the call
    llm = [NeedVerdict(p, True) for p in probes]
    llm[-1] = NeedVerdict(probes[-1], None, error="timeout")
    combined = both(llm, gv)
    assert [v.needed for v in combined[:-1]] == [v.needed for v in gv[:-1]]
    assert combined[-1].needed is (None if gv[-1].needed else False)


def test_cli_gate_only_needs_no_llm(tmp_path, monkeypatch, capsys):
    import numpy as np

    from gaji.cli.main import main

    class Emb:  # cosine 1 for the main question itself, 0.9 for a sub-question sharing its first word, else 0.2
        def embed_queries(self, texts):
            main_word = texts[0].split()[0]
            rows = [[1.0, 0.0]] + [[0.9, 0.4359] if t.split()[0] == main_word else [0.2, 0.9798] for t in texts[1:]]
            return np.asarray(rows, dtype=np.float32)

    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("gaji.index.dense.get_embedder", lambda *a, **k: Emb())
    run = _write(tmp_path, RUN)
    out = tmp_path / "gate"
    assert main(["bench", "verifier", str(run), "--gate-only", "--topic-gate", "0.5", "--offset", "1",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "topic gate, E5 cosine >= 0.5" in text and "questions 2–3" in text and "LLM" not in text
    saved = json.loads((tmp_path / "gate.json").read_text(encoding="utf-8"))
    assert saved["offset"] == 1 and saved["questions"] == 2 and saved["llm"] == "none"
    assert {v["qid"] for v in saved["gate_verdicts"]} == {"b", "c"}
    assert main(["bench", "verifier", str(run), "--gate-only"]) != 0  # no threshold: a clear error
    assert main(["bench", "verifier", str(run), "--offset", "3", "--topic-gate", "0.5", "--gate-only"]) != 0


def test_a_recorded_run_with_compressed_traces_reads_the_same(tmp_path):
    import lzma

    plain = plans_from_run(_write(tmp_path, RUN))
    t = tmp_path / "traces.jsonl"
    (tmp_path / "traces.jsonl.xz").write_bytes(lzma.compress(t.read_bytes()))
    t.unlink()
    assert plans_from_run(tmp_path) == plain
