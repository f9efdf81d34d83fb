"""Corpus readers (gaji.corpus.readers): formats, metadata, and bad input naming file/line/field."""
import json

import pytest

from gaji.corpus.readers import read_documents
from gaji.errors import InputError


def _jsonl(path, lines):
    path.write_text("\n".join(l if isinstance(l, str) else json.dumps(l, ensure_ascii=False) for l in lines) + "\n",
                    encoding="utf-8")
    return path


def test_jsonl_fields_metadata_and_ids(tmp_path):
    p = _jsonl(tmp_path / "c.jsonl", [
        {"id": "a", "title": "T", "text": "hello", "lang": "en", "extra": [1]},
        "",
        {"id": 7, "text": "정수 id"},
        {"text": "no id here"},
    ])
    docs, rep = read_documents([p])
    assert [d.id for d in docs] == ["a", "7", "c-4"]
    assert docs[0].title == "T" and docs[0].metadata == {"lang": "en", "extra": [1]} and docs[0].source == str(p)
    assert docs[1].title == ""
    assert rep.documents == 3 and rep.files == {str(p): 3} and not rep.skipped


def test_malformed_line_names_file_and_line(tmp_path):
    p = _jsonl(tmp_path / "c.jsonl", [{"id": "a", "text": "x"}, '{"id": "b", "text": ', {"id": "c", "text": "y"}])
    with pytest.raises(InputError) as e:
        read_documents([p])
    assert e.value.path == str(p) and e.value.line == 2
    assert f"{p}:2" in str(e.value) and "malformed JSON" in str(e.value)


@pytest.mark.parametrize("rec,msg", [({"id": "a"}, "missing 'text'"), ({"id": "a", "text": "  "}, "empty 'text'"),
                                     ({"id": "a", "text": 3}, "must be a string")])
def test_missing_or_empty_text_names_field(tmp_path, rec, msg):
    p = _jsonl(tmp_path / "c.jsonl", [{"id": "ok", "text": "fine"}, rec])
    with pytest.raises(InputError, match=msg) as e:
        read_documents([p])
    assert e.value.line == 2 and e.value.field == "text" and "(field 'text')" in str(e.value)


def test_skip_bad_reports_what_was_skipped(tmp_path):
    p = _jsonl(tmp_path / "c.jsonl", [{"id": "a", "text": "x"}, "{oops", {"id": "b"}, {"id": "a", "text": "dup"},
                                      {"id": "c", "text": "z"}])
    docs, rep = read_documents([p], skip_bad=True)
    assert [d.id for d in docs] == ["a", "c"]
    assert [(s.line, s.field) for s in rep.skipped] == [(2, None), (3, "text"), (4, "id")]
    assert "skipped 3" in rep.summary()
    # a record left out for its text is named, so gold references to it can be set aside (gaji eval)
    assert [s.record_id for s in rep.skipped] == [None, "b", None]


def test_non_utf8_line(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_bytes(b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "caf\xe9"}\n')
    with pytest.raises(InputError, match="UTF-8") as e:
        read_documents([p])
    assert e.value.line == 2
    docs, rep = read_documents([p], skip_bad=True)
    assert [d.id for d in docs] == ["a"] and rep.skipped[0].line == 2


def test_empty_corpus_is_an_error(tmp_path):
    p = tmp_path / "empty.jsonl"
    p.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty corpus"):
        read_documents([p])
    q = _jsonl(tmp_path / "bad.jsonl", [{"id": "a"}])
    with pytest.raises(InputError, match="empty corpus"):
        read_documents([q], skip_bad=True)  # everything skipped is still an empty corpus


def test_duplicate_ids_name_both_places(tmp_path):
    a = _jsonl(tmp_path / "a.jsonl", [{"id": "x", "text": "1"}])
    b = _jsonl(tmp_path / "b.jsonl", [{"id": "y", "text": "2"}, {"id": "x", "text": "3"}])
    with pytest.raises(InputError) as e:
        read_documents([a, b])
    msg = str(e.value)
    assert f"{a}:1" in msg and f"{b}:2" in msg and "duplicate id 'x'" in msg


def test_folder_of_txt_and_md(tmp_path):
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("plain text file", encoding="utf-8")
    (root / "sub" / "b.md").write_text("intro\n\n# 제목입니다\n\n본문이다.", encoding="utf-8")
    (root / "c.md").write_text("---\ntitle: Front Title\ntags: [x]\n---\nbody here", encoding="utf-8")
    (root / ".hidden.txt").write_text("secret", encoding="utf-8")
    (root / "skip.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")  # no reader takes images (PDFs are read now)
    docs, _ = read_documents([root])
    by_id = {d.id: d for d in docs}
    assert sorted(by_id) == ["a.txt", "c.md", "sub/b.md#sec1", "sub/b.md#sec2"]  # a heading starts a section
    assert by_id["a.txt"].title == "a"
    assert by_id["sub/b.md#sec1"].title == "제목입니다" and by_id["sub/b.md#sec1"].text == "intro"
    assert by_id["sub/b.md#sec2"].text == "본문이다." and by_id["sub/b.md#sec2"].location.section == ["제목입니다"]
    assert by_id["c.md"].title == "Front Title" and by_id["c.md"].text == "body here"
    assert by_id["c.md"].metadata == {"tags": ["x"]}


def test_folder_non_utf8_file(tmp_path):
    root = tmp_path / "d"
    root.mkdir()
    (root / "ok.txt").write_text("fine", encoding="utf-8")
    (root / "bad.txt").write_bytes(b"line one\nline \xff two\n")
    with pytest.raises(InputError, match="UTF-8") as e:
        read_documents([root], strict=True)
    assert e.value.path.endswith("bad.txt") and e.value.line == 2
    docs, rep = read_documents([root])
    assert [d.id for d in docs] == ["ok.txt"] and len(rep.skipped) == 1 and rep.skipped[0].line == 2


def _korquad(path):
    data = {"version": "KorQuAD_v1.0_dev", "data": [
        {"title": "첫_문서", "paragraphs": [
            {"context": "가나다 문단이다.", "qas": [{"id": "q1", "question": "무엇?", "answers": [{"text": "가나다", "answer_start": 0}]}]},
            {"context": "두 번째 문단.", "qas": []}]},
        {"title": "둘", "paragraphs": [{"context": "세 번째.", "qas": [
            {"id": "q2", "question": "어디?", "answers": [{"text": "세", "answer_start": 0}, {"text": "세", "answer_start": 0}]}]}]},
    ]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_korquad_converted_at_load(tmp_path):
    p = _korquad(tmp_path / "KorQuAD_v1.0_dev.json")
    docs, _ = read_documents([p])
    assert [(d.id, d.title) for d in docs] == [("korquad-0-0", "첫_문서"), ("korquad-0-1", "첫_문서"), ("korquad-1-0", "둘")]
    assert docs[2].text == "세 번째."


def test_json_array_corpus_and_unknown_extension(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps([{"id": "a", "text": "x"}, {"id": "b", "text": ""}]), encoding="utf-8")
    with pytest.raises(InputError, match=r"\[1\]\.text"):
        read_documents([p])
    q = tmp_path / "c.csv"
    q.write_text("id,text\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown corpus format"):
        read_documents([q])
    with pytest.raises(InputError, match="no such file"):
        read_documents([tmp_path / "missing.jsonl"])


def test_limit(tmp_path):
    p = _jsonl(tmp_path / "c.jsonl", [{"id": str(i), "text": f"t{i}"} for i in range(10)])
    docs, _ = read_documents([p], limit=3)
    assert [d.id for d in docs] == ["0", "1", "2"]


def test_folder_of_mixed_documents_lists_every_unreadable_file(tmp_path):
    from gaji.corpus.docgen import write_docx, write_xlsx

    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    write_docx(root / "sub" / "정책.docx", "정책", [("h1", "1. 목적"), ("p", "문서를 보호한다.")])
    write_xlsx(root / "예산.xlsx", {"예산": [["부서", "예산"], ["모바일사업부", "48억 원"]]})
    (root / "메모.txt").write_text("짧은 메모", encoding="utf-8")
    (root / "broken.pptx").write_bytes(b"PK\x03\x04 not really a zip")
    (root / "empty.pdf").write_bytes(b"")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    (root / "data.jsonl").write_text('{"text": "records are named explicitly"}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_documents([root], strict=True)
    msg = str(e.value)
    assert "2 files could not be read" in msg and "broken.pptx" in msg and "empty.pdf: empty file" in msg
    assert "--strict" in msg
    docs, rep = read_documents([root])  # by default: the good files, and the others listed
    assert sorted(d.id for d in docs) == ["sub/정책.docx", "메모.txt", "예산.xlsx#sheet1"]
    assert rep.unreadable == 2 and sorted(s.path.rsplit("/", 1)[-1] for s in rep.skipped) == ["broken.pptx", "empty.pdf"]
    assert rep.partial and [s.reason for s in rep.refused() if s.path.endswith("empty.pdf")] == ["empty file"]
    assert {r["path"].rsplit("/", 1)[-1] for r in rep.to_dict()["refused"]} == {"broken.pptx", "empty.pdf"}
    assert rep.ignored == {".png": 1, ".jsonl": 1}
    by_id = {d.id: d for d in docs}
    assert by_id["sub/정책.docx"].location.file == "sub/정책.docx" and by_id["sub/정책.docx"].location.section == ["1. 목적"]
    assert by_id["메모.txt"].location.file == "메모.txt"


def test_text_files_carry_a_content_hash(tmp_path):
    import hashlib

    p = tmp_path / "a.md"
    p.write_text("# 제목\n\n본문", encoding="utf-8")
    (doc,), _ = read_documents([p])
    assert doc.location.sha256 == hashlib.sha256(p.read_bytes()).hexdigest()
    p.write_text("# 제목\n\n바뀐 본문", encoding="utf-8")
    (doc2,), _ = read_documents([p])
    assert doc2.location.sha256 != doc.location.sha256 and doc2.id == doc.id


def test_a_folder_with_only_unreadable_files_names_them(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "빈.md").write_bytes(b"")
    (root / "깨진.docx").write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(InputError) as e:
        read_documents([root])
    msg = str(e.value)
    assert "2 files could not be read, and there is nothing else to index" in msg
    assert "빈.md: empty file" in msg and "깨진.docx" in msg and "empty corpus" not in msg


def test_markdown_headings_become_sections(tmp_path):
    p = tmp_path / "안내.md"
    p.write_text("# 사내 안내\n\n머리말이다.\n\n## 예산\n\n모바일사업부 예산은 48억 원이다.\n\n### 세부\n\n"
                 "```\n# 코드 안의 줄\n    들여쓰기\n```\n\n## 일정\n첫 회의는 봄에 열렸다.\n", encoding="utf-8")
    docs, _ = read_documents([p])
    assert [d.id for d in docs] == ["안내.md#sec1", "안내.md#sec2", "안내.md#sec3", "안내.md#sec4"]
    assert [d.location.section for d in docs] == [[], ["예산"], ["예산", "세부"], ["일정"]]
    assert [d.title for d in docs] == ["사내 안내", "사내 안내 › 예산", "사내 안내 › 예산 › 세부", "사내 안내 › 일정"]
    assert docs[0].text == "머리말이다." and docs[1].text == "모바일사업부 예산은 48억 원이다."
    assert docs[2].text == "```\n# 코드 안의 줄\n    들여쓰기\n```"  # code keeps its lines and indentation
    assert all(d.location.file == "안내.md" and d.location.sha256 == docs[0].location.sha256 for d in docs)
    q = tmp_path / "메모.md"
    q.write_text("# 메모\n\n가지 프로젝트의 첫 회의는 봄에 열렸다.", encoding="utf-8")
    (one,), _ = read_documents([q])  # a title and its text: one Document, as before
    assert one.id == "메모.md" and one.title == "메모" and one.location.section == []
