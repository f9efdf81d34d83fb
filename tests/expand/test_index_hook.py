"""`build_index` with the expansion step: stored with the chunks, composed for dense and BM25, resumable."""
from __future__ import annotations

import json

import pytest

from fakes_expand import FAKE_ID, expand_llm, recording_embedder
from gaji.errors import ConfigError
from gaji.expand.compose import DEFAULT_CASE
from gaji.expand.generator import Expander, ExpansionStore
from gaji.expand.index_hook import EXPAND_DIR, EXPANSIONS_FILE, expansion_step, work_dir
from gaji.index.build import build_index
from gaji.index.store import open_index
from gaji.types import Document

DOCS = [
    Document(id="guam", title="Battle of Guam", text="The Second Battle of Guam was fought in 1944."),
    Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."),
    Document(id="python", title="Python", text="Python is a programming language."),
]


def test_build_with_expand_composes_dense_and_bm25_and_records_it(tmp_path):
    emb = recording_embedder()
    out = tmp_path / "idx"
    step = expansion_step(expander=Expander(expand_llm()), compose="case6")
    idx = build_index(DOCS, out, extension=step, embedder=emb, progress=False)
    m = idx.manifest
    assert m.config["compose"] == "case6" and m.config["expansion_model"] == "scripted"
    assert m.stats["expanded_chunks"] == 3 and m.stats["expand_generated"] == 3
    assert m.stats["expand_prompt_tokens"] > 0
    # stored with the chunk
    c = idx.get_chunk("kimchi")
    assert len(c.metadata["expansion"]["questions"]) == 3
    # embedded as Case 6: <s> questions </s> chunk </s>
    kimchi_text = next(t for t in emb.texts if "김치는" in t)
    assert kimchi_text.startswith("<s> 김치는은 무엇인가요?") and kimchi_text.endswith("전통 음식이다. </s>")
    # BM25 sees the generated questions: a term only in the expansions finds chunks
    hits = idx.retriever("bm25").search("zqexpandterm", 5)
    assert len(hits) == 3
    # the finished expansions are in the index and the work folder is gone
    assert (out / EXPAND_DIR / EXPANSIONS_FILE).exists() and not work_dir(out).exists()
    # searched passages show the chunk text, not the composition
    assert "<s>" not in hits[0].text


def test_plain_index_is_unchanged_and_case1_only_adds_delimiters(tmp_path):
    emb = recording_embedder()
    idx = build_index(DOCS, tmp_path / "plain", embedder=emb, progress=False)
    assert "compose" not in idx.manifest.config
    assert "Python\nPython is a programming language." in emb.texts
    assert idx.retriever("bm25").search("zqexpandterm", 5) == []
    emb = recording_embedder()
    build_index(DOCS, tmp_path / "c1", extension=expansion_step(expander=Expander(expand_llm()), compose="case1"),
                embedder=emb, progress=False)
    assert "<s> Python\nPython is a programming language. </s>" in emb.texts


def test_interrupted_expansion_resumes_and_rebuild_reuses(tmp_path):
    out = tmp_path / "idx"

    class Crash(BaseException):
        pass

    llm = expand_llm()
    llm.parallel_slots = 1  # one chunk at a time: the crash comes after exactly two finished chunks
    calls = {"n": 0}

    class CrashingExpander(Expander):
        def expand_one(self, chunk):
            calls["n"] += 1
            if calls["n"] == 3:
                raise Crash()
            return super().expand_one(chunk)

    with pytest.raises(Crash):
        build_index(DOCS, out, extension=expansion_step(expander=CrashingExpander(llm, )), dense=False, progress=False)
    assert not out.exists()
    saved = ExpansionStore(work_dir(out) / EXPANSIONS_FILE).load()
    assert len(saved) == 2
    llm2 = expand_llm()
    idx = build_index(DOCS, out, extension=expansion_step(expander=Expander(llm2)), dense=False, progress=False)
    assert len(llm2.requests) == 3 - len(saved)
    assert idx.manifest.stats["expand_reused"] == len(saved)
    assert idx.manifest.config["compose"] == DEFAULT_CASE  # the default when expanding
    # rebuilding the same index with another composition asks the LLM for nothing
    llm3 = expand_llm()
    idx = build_index(DOCS, out, extension=expansion_step(expander=Expander(llm3), compose="case4"), dense=False,
                      progress=False)
    assert llm3.requests == [] and idx.manifest.config["compose"] == "case4"


def test_ready_expansions_file_and_index_add(tmp_path):
    side = tmp_path / "side.jsonl"
    from gaji.corpus.chunking import ChunkingConfig, chunk_document

    chunks = [c for d in DOCS for c in chunk_document(d, ChunkingConfig())]
    Expander(expand_llm()).run(chunks[:2], ExpansionStore(side))
    emb = recording_embedder()
    idx = build_index(DOCS, tmp_path / "idx", extension=expansion_step(expansions=str(side), compose="case3"),
                      embedder=emb, progress=False)
    assert idx.manifest.stats["expanded_chunks"] == 2
    assert sum(1 for t in emb.texts if "zqexpandterm" in t) == 2
    # the chunk without an expansion falls back to the chunk text
    assert any(t == "<s> Python\nPython is a programming language. </s>" for t in emb.texts)
    # `index add` composes new chunks the same way (without expansion they fall back to the chunk)
    emb.texts.clear()
    idx.add([Document(id="new", text="A new document.")])
    assert emb.texts == ["<s> A new document. </s>"]


def test_compose_needs_expansions_to_be_useful_and_bad_case_errors(tmp_path):
    with pytest.raises(ConfigError, match="case9"):
        build_index(DOCS, tmp_path / "x", extension=expansion_step(compose="case9"), dense=False, progress=False)
    idx = build_index(DOCS, tmp_path / "y", extension=expansion_step(compose="case1"), dense=False, progress=False)
    assert idx.manifest.config["compose"] == "case1"


def test_manifest_and_chunks_are_json(tmp_path):
    build_index(DOCS, tmp_path / "idx", extension=expansion_step(expander=Expander(expand_llm())), dense=False,
                progress=False)
    rows = [json.loads(x) for x in (tmp_path / "idx" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("expansion" in r["metadata"] for r in rows)
    assert open_index(tmp_path / "idx").info()["config"]["compose"] == DEFAULT_CASE
    assert FAKE_ID
