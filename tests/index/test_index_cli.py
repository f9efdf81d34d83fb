"""`gaji index build|add|info|search` through gaji.cli.main.main."""
import json

from gaji.cli.main import main


def _corpus(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


ROWS = [
    {"id": "guam", "title": "Battle of Guam", "text": "The Second Battle of Guam was fought in 1944."},
    {"id": "kimchi", "title": "김치", "text": "김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."},
    {"id": "python", "title": "Python", "text": "Python is a programming language."},
]


def test_build_info_search_add(tmp_path, capsys):
    c = _corpus(tmp_path / "c.jsonl", ROWS)
    out = tmp_path / "idx"
    assert main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress"]) == 0
    assert "3 documents -> 3 chunks (bm25)" in capsys.readouterr().out

    assert main(["index", "info", str(out)]) == 0
    info = capsys.readouterr().out
    assert "chunks  3" in info and "kiwi" in info and "dense  no" in info
    assert main(["index", "info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks"] == 3

    assert main(["index", "search", str(out), "김치 배추", "--retriever", "bm25", "-k", "2"]) == 0
    res = capsys.readouterr().out
    assert res.lstrip().startswith("1.") and "kimchi" in res
    assert main(["index", "search", str(out), "Guam battle", "--retriever", "bm25", "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["id"] == "guam" and first["source"] == "bm25"

    more = _corpus(tmp_path / "more.jsonl", [{"id": "zebra", "text": "Zebras live in Africa."}])
    assert main(["index", "add", str(out), str(more), "--no-progress"]) == 0
    assert "added 1" in capsys.readouterr().out
    assert main(["index", "search", str(out), "zebra", "--retriever", "bm25", "-k", "1"]) == 0
    assert "zebra" in capsys.readouterr().out


def test_info_of_an_index_built_routing_by_language_says_a_rebuild_switches_it(tmp_path, capsys, monkeypatch):
    import gaji.text.analyzers as analyzers

    c = _corpus(tmp_path / "c.jsonl", ROWS)
    legacy = analyzers.MultiAnalyzer(analyzers.BigramAnalyzer(), routing="lang")
    monkeypatch.setattr(analyzers, "default_analyzer", lambda korean="auto": legacy)  # what an older gaji built
    old = tmp_path / "old"
    assert main(["index", "build", str(c), "--out", str(old), "--no-dense", "--no-progress"]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["index", "info", str(old)]) == 0
    notes = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("note")]
    assert len(notes) == 1 and "switches it to analysis by script" in notes[0]
    assert f"gaji index build {c} --out {old}" in notes[0]
    assert main(["index", "info", str(old), "--json"]) == 0
    assert "English words inside Korean text" in json.loads(capsys.readouterr().out)["analyzer_note"]

    new = tmp_path / "new"
    assert main(["index", "build", str(c), "--out", str(new), "--no-dense", "--no-progress", "--korean-analyzer",
                 "bigram"]) == 0
    capsys.readouterr()
    assert main(["index", "info", str(new)]) == 0
    assert not [ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("note")]
    assert main(["index", "info", str(new), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["analyzer_note"] is None


def test_bad_input_errors_name_file_and_line(tmp_path, capsys):
    c = tmp_path / "bad.jsonl"
    c.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', encoding="utf-8")
    out = tmp_path / "idx"
    assert main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{c}:2" in err and "malformed JSON" in err and "--skip-bad" in err and "Traceback" not in err
    # the bad record is skipped and listed: a partial build, exit 3
    assert main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress", "--skip-bad"]) == 3
    captured = capsys.readouterr()
    assert "1 documents -> 1 chunks" in captured.out and f"{c}:2" in captured.err


def test_errors_for_missing_index_and_unknown_retriever(tmp_path, capsys):
    assert main(["index", "info", str(tmp_path / "nope")]) == 2
    assert "no index here" in capsys.readouterr().err
    c = _corpus(tmp_path / "c.jsonl", ROWS)
    out = tmp_path / "idx"
    assert main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress", "--limit", "2"]) == 0
    capsys.readouterr()
    assert main(["index", "search", str(out), "q", "--retriever", "colbert"]) == 2
    assert "unknown retriever" in capsys.readouterr().err
    assert main(["index", "build", "no-such-dataset", "--out", str(out), "--no-progress"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["index", "build", str(c), "--out", str(out), "--chunk-size", "10", "--chunk-overlap", "20"]) == 2
    assert "overlap" in capsys.readouterr().err


def test_remove_and_sync(tmp_path, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("김치는 배추로 만든다.", encoding="utf-8")
    (notes / "b.md").write_text("Zebras live in Africa.", encoding="utf-8")
    c = _corpus(tmp_path / "c.jsonl", ROWS)
    out = tmp_path / "idx"
    assert main(["index", "build", str(c), "--out", str(out), "--no-dense", "--no-progress"]) == 0
    assert main(["index", "sync", str(notes), "--index", str(out), "--no-progress"]) == 0
    assert "2 added, 0 changed, 0 removed" in capsys.readouterr().out
    (notes / "b.md").write_text("Zebras live in Kenya.", encoding="utf-8")
    (notes / "a.txt").unlink()
    assert main(["index", "sync", str(notes), "--index", str(out), "--wait", "5"]) == 0
    assert "0 added, 1 changed, 1 removed" in capsys.readouterr().out
    assert main(["index", "remove", str(out), "guam", "atlantis"]) == 2
    err = capsys.readouterr().err
    assert "no document 'atlantis'" in err and "nothing was removed" in err and "Traceback" not in err
    assert main(["index", "remove", str(out), "guam", "atlantis", "--missing-ok"]) == 0
    assert "removed 1 document(s), 1 chunk(s); not in the index: atlantis" in capsys.readouterr().out
    assert main(["index", "info", str(out)]) == 0
    info = capsys.readouterr().out
    assert "chunks  3" in info and "(generation 4)" in info


def test_build_publishes_bm25_first_and_fill_completes_the_vectors(tmp_path, capsys):
    c = _corpus(tmp_path / "c.jsonl", ROWS)
    out = tmp_path / "idx"
    assert main(["index", "build", str(c), "--out", str(out), "--no-fill", "--no-progress"]) == 0
    cap = capsys.readouterr()
    assert "searchable with BM25 now; 3 passages to embed" in cap.err and f"gaji index fill {out}" in cap.err
    assert "3 documents -> 3 chunks (bm25 + dense/exact)" in cap.out and "searchable with BM25 after" in cap.out
    assert main(["index", "info", str(out)]) == 0
    assert "vectors  vectors are still being computed (0 of 3 passages" in capsys.readouterr().out
    assert main(["index", "search", str(out), "김치 배추", "--retriever", "hybrid", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out.splitlines()[0])["source"] == "bm25" and "note: vectors are still being computed" in cap.err

    assert main(["index", "fill", str(out), "--no-progress"]) == 0
    assert "embedded 3 passages (0 kept from before)" in capsys.readouterr().out
    assert main(["index", "info", str(out)]) == 0
    assert "vectors  complete" in capsys.readouterr().out
    assert main(["index", "search", str(out), "김치 배추", "--retriever", "hybrid", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out.splitlines()[0])["source"] == "hybrid" and "note:" not in cap.err
    assert main(["index", "fill", str(out)]) == 0
    assert "the vectors are complete" in capsys.readouterr().out

    more = _corpus(tmp_path / "more.jsonl", [{"id": "zebra", "text": "Zebras live in Africa."}])
    assert main(["index", "add", str(out), str(more), "--progress"]) == 0  # not a terminal: a line per 10 %
    cap = capsys.readouterr()
    assert "added 1" in cap.out and "searchable with BM25 now; 1 passage to embed" in cap.err
    assert "passages/s" in cap.err
    assert main(["index", "info", str(out)]) == 0
    assert "vectors  complete" in capsys.readouterr().out
