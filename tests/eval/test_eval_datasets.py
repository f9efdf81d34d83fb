import json
from pathlib import Path

import pytest

from gaji.errors import ConfigError, InputError
from gaji.eval.datasets import load_dataset, read_corpus
from gaji.eval.metrics.retrieval import GoldRef

from evalfakes import write_jsonl

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def test_gaji_jsonl_with_corpus_and_background(tmp_path):
    write_jsonl(tmp_path / "law.corpus.jsonl", [{"id": "p1", "title": "형법 1조", "text": "..."}])
    q = write_jsonl(tmp_path / "law.jsonl", [
        {"id": "a", "question": "갑은 처벌되는가?", "background": "갑이 물건을 훔쳤다.", "answers": ["처벌된다"],
         "supporting": [{"doc_id": "p1", "title": "형법 1조", "text": "..."}], "type": "1-hop"},
        {"question": "no id, no answers"},
    ])
    ds = load_dataset(str(q))
    assert ds.format == "gaji" and ds.name == "law" and ds.corpus_path == tmp_path / "law.corpus.jsonl"
    a, b = ds.items
    assert a.question == "갑이 물건을 훔쳤다.\n갑은 처벌되는가?" and a.lang == "ko"
    assert a.gold == [GoldRef("p1", "형법 1조")] and a.answers == ["처벌된다"] and a.type == "1-hop"
    assert b.id == "law-3" or b.id.startswith("law-") and b.answers == [] and b.lang == "en"
    assert len(ds.sha256) == 64
    assert [d.id for d in read_corpus(ds.corpus_path)] == ["p1"]


def test_malformed_line_names_file_and_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"question": "ok", "answers": ["x"]}\n\n{"question": oops}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_dataset(str(p))
    assert f"{p}:3" in str(e.value)


def test_missing_question_names_field(tmp_path):
    p = write_jsonl(tmp_path / "q.jsonl", [{"question": "fine"}, {"answers": ["x"]}])
    with pytest.raises(InputError) as e:
        load_dataset(str(p))
    assert f"{p}:2" in str(e.value) and "question" in str(e.value)


def test_unknown_name_lists_known_ones():
    with pytest.raises(ConfigError) as e:
        load_dataset("hotpot_typo")
    msg = str(e.value)
    assert "hotpotqa" in msg and "koblex" in msg and "korquad" in msg


def test_duplicate_ids_are_made_unique(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [{"id": "x", "question": "a"}, {"id": "x", "question": "b"}])
    assert [i.id for i in load_dataset(str(p)).items] == ["x", "x~2"]


HOTPOT = [
    {"_id": "h1", "question": "Which battle occurred first?", "answer": "Battle of Guam", "type": "comparison",
     "level": "hard", "supporting_facts": [["Battle of Guam", 0], ["Battle of Manila", 0]],
     "context": [["Battle of Guam", ["The battle was in 1944.", " It was fought on Guam."]],
                 ["Battle of Manila", ["It was in 1945."]], ["Noise", ["Unrelated."]]]},
    {"_id": "h2", "question": "Was Guam a battle?", "answer": "yes", "type": "bridge", "level": "easy",
     "supporting_facts": [["Battle of Guam", 1]],
     "context": [["Battle of Guam", ["The battle was in 1944.", " It was fought on Guam."]]]},
]


def test_official_hotpotqa_json(tmp_path):
    p = tmp_path / "hotpot_dev_distractor_v1.json"
    p.write_text(json.dumps(HOTPOT), encoding="utf-8")
    ds = load_dataset(str(p))
    assert ds.format == "hotpotqa" and ds.corpus_path is None and ds.has_corpus
    assert len(ds.documents) == 3  # pooled and deduplicated
    guam = next(d for d in ds.documents if d.title == "Battle of Guam")
    assert guam.text == "The battle was in 1944. It was fought on Guam."
    h1 = ds.items[0]
    assert h1.id == "h1" and h1.answers == ["Battle of Guam"]
    assert [g.title for g in h1.gold] == ["Battle of Guam", "Battle of Manila"]
    assert h1.gold[0].doc_id == guam.id  # gold points into the emitted corpus
    assert ds.corpus_source() == ds.documents


def test_official_2wiki_json(tmp_path):
    rows = [{**HOTPOT[0], "type": "compositional", "evidences": [["a", "b", "c"]]}]
    rows[0].pop("level")
    p = tmp_path / "dev.json"
    p.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    ds = load_dataset(str(p))
    assert ds.format == "2wikimultihopqa" and ds.documents[0].id.startswith("2wikimultihopqa-")


def test_official_musique_jsonl(tmp_path):
    p = write_jsonl(tmp_path / "musique_ans_v1.0_dev.jsonl", [{
        "id": "2hop__1_2", "question": "Where did the painter die?", "answer": "Mantua",
        "answer_aliases": ["Mantova"], "answerable": True,
        "paragraphs": [{"idx": 0, "title": "A", "paragraph_text": "text a", "is_supporting": True},
                       {"idx": 1, "title": "B", "paragraph_text": "text b", "is_supporting": False}],
    }])
    ds = load_dataset(str(p))
    it = ds.items[0]
    assert ds.format == "musique" and it.answers == ["Mantua", "Mantova"] and it.type == "2hop"
    assert len(ds.documents) == 2 and [g.title for g in it.gold] == ["A"]


SQUAD = {"version": "KorQuAD_v1.0_dev", "data": [
    {"title": "임종석", "paragraphs": [
        {"context": "1989년 2월 15일 여의도 농민 폭력 시위를 주도한 혐의로 지명수배되었다.",
         "qas": [{"id": "1-0", "question": "지명수배 된 날은?", "answers": [{"text": "1989년 2월 15일", "answer_start": 0}]}]},
        {"context": "두 번째 문단.", "qas": [{"id": "1-1", "question": "두 번째?", "answers": [{"text": "문단", "answer_start": 3}]}]},
    ]}]}


@pytest.mark.parametrize("indent", [None, 2])
def test_korquad_json_single_line_or_pretty(tmp_path, indent):
    p = tmp_path / "KorQuAD_tiny.json"
    p.write_text(json.dumps(SQUAD, ensure_ascii=False, indent=indent), encoding="utf-8")
    before = p.read_bytes()
    ds = load_dataset(str(p))
    assert ds.format == "korquad"
    assert [d.id for d in ds.documents] == ["korquad-0-0", "korquad-0-1"]
    assert ds.items[1].gold[0].doc_id == "korquad-0-1" and ds.items[0].answers == ["1989년 2월 15일"]
    assert p.read_bytes() == before and sorted(x.name for x in tmp_path.iterdir()) == ["KorQuAD_tiny.json"]


def test_unrecognised_json(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError):
        load_dataset(str(p))


@pytest.mark.data
@pytest.mark.skipif(not DATA.is_dir(), reason="shared data absent")
def test_shared_sets_load():
    kq = load_dataset("korquad")
    assert len(kq.items) == 5774 and len(kq.documents) == 964 and kq.items[0].gold[0].doc_id.startswith("korquad-")
    kb = load_dataset("koblex")
    assert kb.long_form and kb.items[0].question.startswith(kb.items[0].question.split("\n")[0])
    assert "\n" in kb.items[0].question  # background prepended
    hp = load_dataset("hotpotqa")
    assert hp.corpus_path.name == "hotpotqa.corpus.jsonl" and all(it.gold for it in hp.items)
    assert load_dataset("2wiki").name == "2wikimultihopqa"
    assert not load_dataset("bamboogle").has_corpus


def test_emit_corpus_of_an_official_file(tmp_path):
    from gaji.eval.datasets import write_corpus

    p = tmp_path / "hotpot.json"
    p.write_text(json.dumps(HOTPOT), encoding="utf-8")
    ds = load_dataset(str(p))
    assert write_corpus(ds, tmp_path / "out.corpus.jsonl") == 3
    back = read_corpus(tmp_path / "out.corpus.jsonl")
    assert [d.id for d in back] == [d.id for d in ds.documents] and back[0].title == "Battle of Guam"
    k = tmp_path / "kq.json"
    k.write_text(json.dumps(SQUAD, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ConfigError, match="never re-saved"):
        write_corpus(load_dataset(str(k)), tmp_path / "kq.corpus.jsonl")
