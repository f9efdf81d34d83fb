"""Building an index (gaji.index.build): atomic builds, resume of an interrupted build, inputs and progress."""
import numpy as np
import pytest

from gaji.errors import ConfigError, IndexUnusableError
from gaji.index.build import BuildState, build_index
from gaji.index.store import open_index
from gaji.types import Document

from fakes_index import DOCS, build_small, fake_embedder


def test_lexical_only_index(tmp_path):
    idx = build_index(DOCS, tmp_path / "lex", dense=False, progress=False)
    assert idx.retriever("bm25").search("김치 배추", 1)[0].id == "kimchi"
    with pytest.raises(IndexUnusableError, match="no dense part"):
        idx.retriever("dense")
    with pytest.raises(IndexUnusableError, match="no dense part"):
        idx.retriever("hybrid")
    with pytest.raises(ConfigError):
        build_index(DOCS, tmp_path / "none", dense=False, lexical=False, progress=False)


def test_rebuild_replaces_index_and_refuses_foreign_dirs(tmp_path):
    out = tmp_path / "idx"
    build_small(out)
    build_small(out, docs=DOCS[:2])
    assert open_index(out).chunks == 2
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "important.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="refusing"):
        build_small(foreign)
    assert (foreign / "important.txt").read_text() == "keep me"


def test_crash_before_bm25_is_done_leaves_no_index_then_resumes(tmp_path, monkeypatch):
    import gaji.index.build as build_mod

    def crash(*a, **kw):
        raise KeyboardInterrupt("simulated crash")

    docs = [Document(id=f"d{i}", text=f"document number {i} about topic {i % 7}") for i in range(40)]
    out = tmp_path / "idx"
    with monkeypatch.context() as mp:
        mp.setattr(build_mod, "index_lexical", crash)
        with pytest.raises(KeyboardInterrupt):
            build_index(docs, out, progress=False, embedder=fake_embedder())
    assert not out.exists() and (tmp_path / ".idx.building").exists()
    with pytest.raises(IndexUnusableError, match="interrupted"):
        open_index(out)
    idx = build_index(docs, out, progress=False, embedder=fake_embedder())
    assert idx.chunks == 40 and not (tmp_path / ".idx.building").exists() and not idx.vectors_pending


def test_crash_while_filling_vectors_leaves_a_bm25_index_then_resumes(tmp_path):
    emb = fake_embedder()
    docs = [Document(id=f"d{i}", text=f"document number {i} about topic {i % 7}") for i in range(40)]
    out = tmp_path / "idx"
    emb.fail_after = 25
    with pytest.raises(KeyboardInterrupt):
        build_index(docs, out, progress=False, embedder=emb, checkpoint_rows=10)
    idx = open_index(out)  # published: BM25 answers, the vectors are pending
    assert idx.vectors_pending and idx.manifest.vectors["pending"] == 40
    assert idx.retriever("hybrid").search("document number 17", 1)[0].id == "d17"
    assert idx.retriever("hybrid").name == "bm25"
    emb.fail_after = None
    emb.passages_embedded = 0
    idx = build_index(docs, out, progress=False, embedder=emb, checkpoint_rows=10)  # the same build: goes on filling
    assert idx.manifest.stats["resumed_rows"] == 20  # two checkpoints of 10 were kept
    assert emb.passages_embedded == 20
    assert idx.chunks == 40 and not (tmp_path / ".idx.building").exists() and not idx.vectors_pending
    fresh = np.stack([emb._vec(f"document number {i} about topic {i % 7}") for i in range(40)])
    assert np.allclose(np.load(out / "dense" / "vectors.npy"), fresh)
    assert idx.retriever("hybrid").name == "hybrid" and not (out / "dense-fill").exists()


def test_interrupted_build_with_other_inputs_restarts_clean(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    emb.fail_after = 3
    with pytest.raises(KeyboardInterrupt):
        build_index(DOCS, out, progress=False, embedder=emb, checkpoint_rows=2)
    emb.fail_after = None
    idx = build_index(DOCS[:3], out, progress=False, embedder=emb, checkpoint_rows=2)
    assert idx.manifest.stats["resumed_rows"] == 0 and idx.chunks == 3


def test_build_from_paths_with_skip_bad(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "a", "text": "alpha text"}\n{"id": "b"}\n{"id": "c", "text": "gamma text"}\n', encoding="utf-8")
    idx = build_index([p], tmp_path / "idx", dense=False, progress=False, skip_bad=True)
    assert idx.chunks == 2 and len(idx.read_report.skipped) == 1
    assert idx.manifest.sources == [str(p)]


def test_progress_bar_path(tmp_path, capsys):
    idx = build_index(DOCS, tmp_path / "p", progress=True, embedder=fake_embedder())
    assert idx.chunks == 5
    assert "passages/s" in capsys.readouterr().err


def test_build_state_resumes_only_the_same_build(tmp_path):
    work = tmp_path / ".idx.building"
    state = BuildState.begin(work, "fp1")
    assert not state.resumed and BuildState.load(work) == state
    state.dense_model = "m"
    state.save(work)
    (work / "partial.npy").write_bytes(b"x")
    again = BuildState.begin(work, "fp1")
    assert again.resumed and again.dense_model == "m" and (work / "partial.npy").exists()
    other = BuildState.begin(work, "fp2")  # other inputs: the folder is wiped
    assert not other.resumed and not (work / "partial.npy").exists()
    (work / "build-state.json").write_text("{not json")
    assert BuildState.load(work) is None and BuildState.begin(work, "fp2").fingerprint == "fp2"


MIXED = [
    Document(id="ko-hf", title="허깅페이스", text="허깅페이스의 Transformers 라이브러리는 Running 중인 모델을 불러온다."),
    Document(id="en-stew", title="Seoul food", text="The restaurant in Seoul serves 김치찌개를 every day."),
    Document(id="en-other", title="Guam", text="Guam is an island territory of the United States."),
    Document(id="ko-other", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."),
]


def test_bm25_finds_a_word_of_either_script_in_a_chunk_of_the_other_language(tmp_path):
    bm25 = build_index(MIXED, tmp_path / "mixed", dense=False, progress=False).retriever("bm25")
    for query, expected in (("transformer", "ko-hf"), ("running", "ko-hf"), ("run the library", "ko-hf"),
                            ("김치찌개", "en-stew"), ("서울 김치찌개 식당", "en-stew"),
                            ("Transformers 라이브러리", "ko-hf")):
        hits = bm25.search(query, 1)
        assert hits and hits[0].id == expected, (query, [h.id for h in hits])


def test_an_index_built_routing_by_language_is_searched_and_extended_that_way(tmp_path, monkeypatch):
    import gaji.text.analyzers as analyzers
    from gaji.index.writer import add_documents

    legacy = analyzers.MultiAnalyzer(analyzers.default_analyzer().korean, routing="lang")
    monkeypatch.setattr(analyzers, "default_analyzer", lambda korean="auto": legacy)  # what an older gaji built
    out = tmp_path / "old"
    build_index(MIXED[:2], out, dense=False, progress=False)
    monkeypatch.undo()
    idx = open_index(out)
    assert idx.manifest.config["analyzer"] == legacy.name and idx.analyzer.routing == "lang"
    bm25 = idx.retriever("bm25")
    assert bm25.search("transformers 라이브러리", 1)[0].id == "ko-hf"  # queries analysed as the chunks were
    add_documents(out, MIXED[2:], progress=False)
    idx = open_index(out)
    assert idx.manifest.config["analyzer"] == legacy.name  # an add keeps the index's analysis
    assert idx.retriever("bm25").search("김치 배추", 1)[0].id == "ko-other"
    fresh = build_index(MIXED, tmp_path / "new", dense=False, progress=False)
    assert fresh.manifest.config["analyzer"] == analyzers.default_analyzer().name != legacy.name
