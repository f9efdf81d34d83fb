"""Chunking (gaji.corpus.chunking): sizes, overlap, sentence boundaries (ko/en), stable ids."""
import pytest

from gaji.corpus.chunking import ChunkingConfig, chunk_document, chunk_documents
from gaji.corpus.shared_data import find_data_dir
from gaji.errors import ConfigError
from gaji.text.sentences import split_sentences
from gaji.types import Document

EN = ("The battle began at dawn. Troops crossed the river quickly. By noon the town had fallen. "
      "Reinforcements arrived too late. The general wrote a long report. It was published a year later.")
KO = ("전투는 새벽에 시작되었다. 병사들은 강을 빠르게 건넜다. 정오에 마을이 함락되었어요. "
      "지원군은 너무 늦게 도착했다. 장군은 긴 보고서를 썼다. 보고서는 일 년 뒤에 출간되었습니까? 그렇다!")


def test_short_document_is_one_chunk_with_doc_id():
    d = Document(id="doc-1", text="Short text. Two sentences.", title="T", metadata={"k": 1})
    [c] = chunk_document(d)
    assert (c.id, c.doc_id, c.text, c.title, c.lang, c.start, c.end) == ("doc-1", "doc-1", d.text, "T", "en", 0, len(d.text))
    assert c.metadata == {"k": 1}


@pytest.mark.parametrize("text,lang", [(EN, "en"), (KO, "ko")])
def test_sizes_sentence_boundaries_and_slices(text, lang):
    d = Document(id="d", text=text)
    cfg = ChunkingConfig(size=60, overlap=0)
    chunks = chunk_document(d, cfg)
    assert len(chunks) >= 2
    sentences = set(split_sentences(text))
    for n, c in enumerate(chunks):
        assert c.id == f"d#{n}" and c.lang == lang
        assert len(c.text) <= 60 and c.text == text[c.start:c.end]
        # whole sentences only: the chunk is a run of complete sentences
        assert all(s in sentences for s in split_sentences(c.text))
    # together the chunks cover every sentence, in order
    assert [s for c in chunks for s in split_sentences(c.text)] == split_sentences(text)


def test_overlap_repeats_last_sentences():
    d = Document(id="d", text=EN)
    chunks = chunk_document(d, ChunkingConfig(size=90, overlap=40))
    assert len(chunks) >= 3
    for a, b in zip(chunks, chunks[1:]):
        last = split_sentences(a.text)[-1]
        if len(last) <= 40:
            assert b.text.startswith(last)
        assert b.start > a.start  # always progresses
        assert len(b.text) <= 90


def test_overlong_sentence_is_cut_at_words():
    words = " ".join(f"Word{i}" for i in range(60)) + "."
    d = Document(id="d", text="Short first. " + words + " Short last.")
    chunks = chunk_document(d, ChunkingConfig(size=50, overlap=10))
    assert all(len(c.text) <= 50 for c in chunks)
    assert chunks[0].text == "Short first."
    assert chunks[-1].text == "Short last."
    assert all(c.text == d.text[c.start:c.end] for c in chunks)
    # a word longer than the size is hard-split
    d2 = Document(id="e", text="x" * 120)
    assert all(len(c.text) <= 50 for c in chunk_document(d2, ChunkingConfig(size=50, overlap=10)))


def test_stable_ids_across_runs():
    docs = [Document(id=f"d{i}", text=EN * (i + 1)) for i in range(3)]
    cfg = ChunkingConfig(size=120, overlap=30)
    a = [(c.id, c.start, c.end) for c in chunk_documents(docs, cfg)]
    b = [(c.id, c.start, c.end) for c in chunk_documents(docs, cfg)]
    assert a == b and len({x[0] for x in a}) == len(a)


def test_by_tokens_counts_words_in_english():
    d = Document(id="d", text=EN)
    chunks = chunk_document(d, ChunkingConfig(size=12, overlap=0, by="tokens"))
    assert len(chunks) > 1
    assert all(len(c.text.split()) <= 12 for c in chunks)


def test_by_tokens_korean_morphemes():
    d = Document(id="d", text=KO)
    chunks = chunk_document(d, ChunkingConfig(size=15, overlap=3, by="tokens"))
    assert len(chunks) > 1 and all(c.text == KO[c.start:c.end] for c in chunks)


def test_config_validation_and_defaults():
    assert ChunkingConfig().size == 10_000 and ChunkingConfig().overlap == 200
    assert ChunkingConfig(by="tokens").size == 2000
    assert ChunkingConfig.from_dict(ChunkingConfig(size=500, overlap=50).to_dict()) == ChunkingConfig(500, 50)
    with pytest.raises(ConfigError):
        ChunkingConfig(size=100, overlap=100)
    with pytest.raises(ConfigError):
        ChunkingConfig(size=0)
    with pytest.raises(ConfigError):
        ChunkingConfig(by="pages")


@pytest.mark.data
@pytest.mark.skipif(find_data_dir() is None, reason="shared data dir absent")
def test_default_keeps_shared_passages_whole():
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import resolve_corpus

    for name in ("hotpotqa", "2wikimultihopqa", "musique", "koblex", "korquad"):
        docs, _ = read_documents([resolve_corpus(name)])
        chunks = list(chunk_documents(docs))
        assert len(chunks) == len(docs), name
        assert all(c.id == c.doc_id for c in chunks)


def test_a_document_id_may_not_look_like_a_chunk_id():
    from gaji.corpus.chunking import document_id_problem

    assert "chunk 1 of document 'long'" in document_id_problem("long#1")
    assert document_id_problem("a#b#12") and document_id_problem("#0")
    for ok in ("long", "long#a", "deck.pptx#slide2", "report.pdf#page3", "x#1y", "#", "x#", "값#１"):
        assert document_id_problem(ok) is None, ok
    long_doc = Document(id="long", text=" ".join(["A sentence here."] * 40))
    ids = [c.id for c in chunk_document(long_doc, ChunkingConfig(size=100, overlap=0))]
    assert all(document_id_problem(i) for i in ids[1:]) and len(ids) > 2  # chunk ids are exactly that form
