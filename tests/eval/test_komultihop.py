"""The KoMultiHop checker and loader: a tiny KorQuAD-shaped fixture for every rule, and the shipped set
against the real KorQuAD dev file (marked `data`)."""
import json
from pathlib import Path

import pytest

from gaji.errors import ConfigError, InputError
from gaji.eval import komultihop as km

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
KORQUAD = DATA / "KorQuAD_v1.0_dev.json"

# Made-up paragraphs (not KorQuAD text): article 0 is a person, article 1 a film.
TINY = {"version": "tiny", "data": [
    {"title": "홍길동", "paragraphs": [
        {"context": "홍길동은 1970년 서울에서 태어난 영화 감독이다.", "qas": []},
        {"context": "그는 2001년 대종상 감독상을 받았다.", "qas": []}]},
    {"title": "푸른 강", "paragraphs": [
        {"context": "푸른 강은 1998년에 개봉한 영화로, 홍길동이 연출하였다.", "qas": []}]},
]}


def good_bridging(n: int = 1, split: str = "dev") -> dict:
    return {
        "id": f"komh-bridging-{n:03d}", "type": "bridging",
        "question": "1998년 영화 푸른 강을 연출한 감독이 태어난 해는?" + ("" if n == 1 else f" ({n})"),
        "answers": ["1970년", "1970"],
        "supporting": [{"doc_id": "korquad-1-0", "title": "푸른 강"}, {"doc_id": "korquad-0-0", "title": "홍길동"}],
        "decomposition": [
            {"question": "푸른 강을 연출한 사람은?", "answer": "홍길동", "doc_id": "korquad-1-0"},
            {"question": "홍길동이 태어난 해는?", "answer": "1970년", "doc_id": "korquad-0-0"}],
        "split": split, "dataset": "komultihop", "language": "ko"}


def good_intersection(n: int = 1, split: str = "dev") -> dict:
    return {
        "id": f"komh-intersection-{n:03d}", "type": "intersection",
        "question": "서울에서 태어났으면서 2001년 대종상 감독상을 받은 사람은?" + ("" if n == 1 else f" ({n})"),
        "answers": ["홍길동"],
        "supporting": [{"doc_id": "korquad-0-0", "title": "홍길동"}, {"doc_id": "korquad-0-1", "title": "홍길동"}],
        "decomposition": [
            {"question": "서울에서 태어난 감독은?", "answer": "홍길동", "doc_id": "korquad-0-0"},
            {"question": "2001년 대종상 감독상을 받은 사람은?", "answer": "대종상 감독상", "doc_id": "korquad-0-1"}],
        "split": split, "dataset": "komultihop", "language": "ko"}


@pytest.fixture
def korquad(tmp_path) -> Path:
    p = tmp_path / "KorQuAD_tiny.json"
    p.write_text(json.dumps(TINY, ensure_ascii=False), encoding="utf-8")
    return p


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def problems(tmp_path, korquad, rows, name="bridging.jsonl") -> list[str]:
    rep = km.check_set([write(tmp_path / name, rows)], korquad=korquad)
    return [str(p) for p in rep.problems]


def test_clean_file_passes(tmp_path, korquad):
    rep = km.check_set([write(tmp_path / "bridging.jsonl", [good_bridging(1), good_bridging(2, "report")])],
                       korquad=korquad)
    assert rep.ok, rep.problems
    assert rep.counts[("bridging", "dev")] == 1 and rep.counts[("bridging", "report")] == 1
    assert "| bridging | 1 | 1 | 2 |" in rep.table()


def test_intersection_needs_its_last_step_to_be_the_answer(tmp_path, korquad):
    rows = [good_intersection()]
    got = problems(tmp_path, korquad, rows, "intersection.jsonl")
    assert len(got) == 1 and "intersection.jsonl:1: answers: the last step's answer '대종상 감독상'" in got[0]
    rows[0]["decomposition"][1]["answer"] = "2001년"
    assert any("last step" in p for p in problems(tmp_path, korquad, rows, "intersection.jsonl"))


@pytest.mark.parametrize("mutate, expect", [
    (lambda r: r["decomposition"][1].update(answer="1971년"), "2: decomposition[1].answer: '1971년' does not appear in paragraph korquad-0-0"),
    (lambda r: r["supporting"][1].update(doc_id="korquad-9-9"), "2: supporting[1].doc_id: 'korquad-9-9' is not a KorQuAD dev paragraph id"),
    (lambda r: r["supporting"][1].update(doc_id="korquad-1-0"), "2: supporting[1].doc_id: korquad-1-0 is listed twice"),
    (lambda r: r["supporting"][0].update(title="푸른강"), "2: supporting[0].title: '푸른강' is not the title of korquad-1-0"),
    (lambda r: r["supporting"][0].update(text="..."), "2: supporting[0].text: paragraph text must not be stored"),
    (lambda r: r.update(supporting=r["supporting"][:1]), "2: supporting: needs 2 to 4 paragraphs, has 1"),
    (lambda r: r["supporting"].append({"doc_id": "korquad-0-1", "title": "홍길동"}), "2: supporting: korquad-0-1 is used by no decomposition step"),
    (lambda r: r["decomposition"][0].update(doc_id="korquad-0-1"), "2: decomposition[0].doc_id: 'korquad-0-1' is not among the supporting"),
    (lambda r: r.update(decomposition=r["decomposition"][:1]), "2: decomposition: must be a list of at least 2 steps"),
    (lambda r: r.update(answers=["1971년"]), "2: answers: no variant appears in a supporting paragraph"),
    (lambda r: r.update(question="홍길동이 연출한 영화 푸른 강의 감독이 태어난 해는?"), "2: question: names the bridge entity '홍길동'"),
    (lambda r: r.update(question="1970년에 태어난 감독은?"), "2: question: names its own answer '1970년'"),
    (lambda r: r.update(answers=["1970년", "1970년 "]), "2: answers[1]: has leading or trailing whitespace"),
    (lambda r: r.update(answers=["1970년", "1970년"]), "2: answers[1]: repeats the variant"),
    (lambda r: r.update(answers=[]), "2: answers: must be a non-empty list"),
    (lambda r: r.update(split="test"), "2: split: must be one of dev, report"),
    (lambda r: r.update(type="comparison"), "2: type: 'comparison' in bridging.jsonl"),
    (lambda r: r.update(id="bridging-2"), "2: id: 'bridging-2' does not look like komh-<type>-NNN"),
    (lambda r: r.update(id="komh-bridging-001"), "2: id: 'komh-bridging-001' already used at bridging.jsonl:1"),
    (lambda r: r.update(question=good_bridging(1)["question"]), "2: question: same question as bridging.jsonl:1"),
    (lambda r: r.update(language="en"), "2: language: must be 'ko'"),
    (lambda r: r.pop("dataset"), "2: dataset: missing"),
    (lambda r: r.update(note="x"), "2: note: unknown field"),
    (lambda r: r.update(question="푸른 강을 연출한 감독이 태어난 해는\u1100\u1161?"), "2: question: is not in Unicode NFC form"),
])
def test_broken_record_is_named_by_file_line_and_field(tmp_path, korquad, mutate, expect):
    bad = good_bridging(2, "report")
    mutate(bad)
    got = problems(tmp_path, korquad, [good_bridging(1), bad])
    assert any(f"bridging.jsonl:{expect}" in p for p in got), got


def test_sub_answers_match_after_nfc_and_whitespace(tmp_path, korquad):
    row = good_bridging()
    row["decomposition"][1]["answer"] = "서울에서  태어난"  # two spaces: whitespace runs are collapsed
    row["decomposition"][1]["question"] = "홍길동은 어디에서 태어났나?"
    row["answers"] = ["서울에서 태어난"]
    row["question"] = "1998년 영화 푸른 강을 연출한 감독은 어디에서 태어났나?"
    assert problems(tmp_path, korquad, [row]) == []
    row["decomposition"][1]["answer"] = "서울 에서"  # a space where the paragraph has none is not the span
    assert any("decomposition[1].answer: '서울 에서' does not appear" in p for p in problems(tmp_path, korquad, [row]))


def test_comparison_answer_may_come_from_the_question(tmp_path, korquad):
    row = {**good_bridging(), "id": "komh-comparison-001", "type": "comparison",
           "question": "홍길동과 푸른 강 중 먼저 생긴 것은?", "answers": ["홍길동"],
           "decomposition": [{"question": "푸른 강 개봉 연도는?", "answer": "1998년", "doc_id": "korquad-1-0"},
                             {"question": "홍길동 출생 연도는?", "answer": "1970년", "doc_id": "korquad-0-0"}]}
    assert problems(tmp_path, korquad, [row], "comparison.jsonl") == []
    row["answers"] = ["김철수"]
    assert any("in the question or a supporting paragraph" in p for p in problems(tmp_path, korquad, [row], "comparison.jsonl"))
    row["question"], row["answers"] = "홍길동과 푸른 강은 같은 해에 생겼나?", ["아니오", "아니요"]  # yes/no
    assert problems(tmp_path, korquad, [row], "comparison.jsonl") == []
    row["answers"] = ["아니오", "김철수"]
    assert problems(tmp_path, korquad, [row], "comparison.jsonl") != []
    bridge = {**good_bridging(), "answers": ["아니오"]}  # a bridge's answer is a span, never yes/no
    assert any("no variant appears in a supporting paragraph" in p for p in problems(tmp_path, korquad, [bridge]))


def test_split_balance_and_unreadable_lines(tmp_path, korquad):
    rows = [good_bridging(n, "dev") for n in range(1, 4)]
    got = problems(tmp_path, korquad, rows)
    assert any("split: bridging: 3 dev vs 0 report" in p for p in got)
    p = tmp_path / "bridging.jsonl"
    p.write_text(json.dumps(good_bridging(), ensure_ascii=False) + "\n{oops\n", encoding="utf-8")
    got = [str(x) for x in km.check_set([p], korquad=korquad).problems]
    assert any("bridging.jsonl:2" in x and "not valid JSON" in x for x in got)


def test_a_hop_shared_across_dev_and_report_is_a_warning_not_an_error(tmp_path, korquad):
    other = {**good_bridging(), "id": "komh-comparison-001", "type": "comparison", "split": "report",
             "question": "푸른 강 개봉과 홍길동의 대종상 수상 중 먼저 일어난 일은?", "answers": ["푸른 강 개봉"],
             "supporting": [{"doc_id": "korquad-1-0", "title": "푸른 강"}, {"doc_id": "korquad-0-1", "title": "홍길동"}],
             "decomposition": [{"question": "푸른 강 개봉 연도는?", "answer": "1998년", "doc_id": "korquad-1-0"},
                               {"question": "홍길동의 대종상 수상 연도는?", "answer": "2001년", "doc_id": "korquad-0-1"}]}
    files = [write(tmp_path / "bridging.jsonl", [good_bridging(1, "dev")]), write(tmp_path / "comparison.jsonl", [other])]
    rep = km.check_set(files, korquad=korquad)  # the same paragraph, another fact: no warning
    assert rep.ok and rep.warnings == [], (rep.problems, rep.warnings)
    rows = [good_bridging(1, "dev"), good_bridging(2, "report")]
    rep = km.check_set([write(tmp_path / "bridging.jsonl", rows)], korquad=korquad)
    assert rep.ok
    assert any("(korquad-1-0, '홍길동') is shared across dev and report: komh-bridging-001 (dev), "
               "komh-bridging-002 (report)" in str(w) for w in rep.warnings), rep.warnings


def test_whole_set_rules(tmp_path, korquad, monkeypatch):
    write(tmp_path / "bridging.jsonl", [good_bridging(1), good_bridging(2, "report")])
    monkeypatch.setattr(km, "set_files", lambda folder=tmp_path: [tmp_path / f"{t}.jsonl" for t in km.TYPES])
    got = [str(x) for x in km.check_set(korquad=korquad, min_per_type=2).problems]
    assert any("intersection.jsonl: file not found" in x for x in got)
    assert any("type: hybrid: 0 questions, needs at least 2" in x for x in got)
    assert any("types are not balanced: bridging 2, intersection 0" in x for x in got)


def test_check_command_exit_codes(tmp_path, korquad, capsys):
    from gaji.cli.main import main

    good = write(tmp_path / "bridging.jsonl", [good_bridging(1), good_bridging(2, "report")])
    assert main(["eval", "check-set", "komultihop", str(good), "--korquad", str(korquad)]) == 0
    assert "ok: 2 questions" in capsys.readouterr().out
    (tmp_path / "b").mkdir()
    bad = write(tmp_path / "b" / "bridging.jsonl", [good_bridging(1), {**good_bridging(2, "report"), "answers": ["없는 답"]}])
    assert main(["eval", "check-set", "komultihop", str(bad), "--korquad", str(korquad)]) == 1
    err = capsys.readouterr().err
    assert "bridging.jsonl:2: answers: no variant appears" in err and "problem(s)" in err
    assert main(["eval", "check-set", "komultihop", str(good), "--korquad", str(tmp_path / "none.json")]) == 2
    assert "not found" in capsys.readouterr().err


def test_missing_shared_data_is_a_message(tmp_path, monkeypatch, capsys):
    from gaji.cli.main import main

    monkeypatch.setenv("GAJI_DATA", str(tmp_path / "nowhere"))
    assert main(["eval", "check-set", "komultihop"]) == 2
    err = capsys.readouterr().err
    assert "komultihop reads its paragraphs from the KorQuAD 1.0 dev file" in err and "Traceback" not in err


def test_load_part_refuses_a_broken_set_and_unknown_parts(tmp_path, korquad):
    with pytest.raises(ConfigError):
        km.load_part("komultihop-test", korquad=korquad, folder=tmp_path)
    write(tmp_path / "bridging.jsonl", [good_bridging(1)])
    with pytest.raises(InputError, match="problem"):
        km.load_part("komultihop", korquad=korquad, folder=tmp_path)


# -- the shipped set ------------------------------------------------------------
@pytest.mark.data
@pytest.mark.skipif(not KORQUAD.is_file(), reason="shared data absent")
def test_shipped_set_is_clean():
    rep = km.check_set(korquad=KORQUAD)
    assert rep.ok, "\n".join(str(p) for p in rep.problems)
    assert all(rep.counts[(t, s)] >= km.MIN_PER_TYPE // 2 for t in km.TYPES for s in km.SPLITS)


@pytest.mark.data
@pytest.mark.skipif(not KORQUAD.is_file(), reason="shared data absent")
def test_shipped_set_loads_by_name_over_all_korquad_paragraphs():
    from gaji.eval.datasets import write_corpus
    from gaji.eval.sets import load_dataset

    full, dev, rep = (load_dataset(n) for n in ("komultihop", "komultihop-dev", "komultihop-report"))
    assert len(full.items) == len(dev.items) + len(rep.items) >= 4 * km.MIN_PER_TYPE
    assert {i.id for i in dev.items}.isdisjoint(i.id for i in rep.items)
    assert len(full.documents) == 964 and full.corpus_name == "korquad"
    assert full.corpus_fingerprint() == load_dataset("korquad").corpus_fingerprint()  # one cached index
    ids = {d.id for d in full.documents}
    assert all(g.doc_id in ids for it in full.items for g in it.gold)
    assert {i.lang for i in full.items} == {"ko"} and {i.type for i in full.items} == set(km.TYPES)
    with pytest.raises(ConfigError, match="never re-saved"):
        write_corpus(dev, "/nonexistent/should-not-be-written.jsonl")
    rec = km.supporting_texts([json.loads(km.set_files()[0].read_text(encoding="utf-8").splitlines()[0])], KORQUAD)[0]
    assert all(s["text"] for s in rec["supporting"])
