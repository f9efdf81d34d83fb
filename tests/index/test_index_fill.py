"""Filling the vectors of a published index (gaji.index.fill): resume, one filler at a time, adds meanwhile."""
import threading

import numpy as np
import pytest

from gaji.index.fill import _only_filler, fill_vectors
from gaji.index.fillplan import FillPlan
from gaji.index.progress_file import read_progress
from gaji.index.store import open_index
from gaji.types import Document

from fakes_index import DOCS, build_small, fake_embedder, gated_embedder


def _docs(n):
    return [Document(id=f"d{i}", text=f"document number {i} about topic {i % 7}") for i in range(n)]


def test_a_killed_fill_resumes_without_embedding_finished_rows_again(tmp_path):
    emb = fake_embedder()
    out = tmp_path / "idx"
    build_small(out, docs=_docs(30), embedder=emb, fill=False)
    emb.fail_after = 17  # killed after 17 passages: checkpoints of 5 keep 15
    with pytest.raises(KeyboardInterrupt):
        fill_vectors(out, emb, checkpoint_rows=5)
    prog = read_progress(out)
    assert prog["stage"] == "stopped" and prog["stopped_in"] == "embedding" and prog["running"] is False
    assert open_index(out).vectors_pending
    emb.fail_after, emb.passages_embedded = None, 0
    res = fill_vectors(out, emb, checkpoint_rows=5)
    assert res.complete and res.resumed == 15 and res.embedded == 15 == emb.passages_embedded
    fresh = np.stack([emb._vec(f"document number {i} about topic {i % 7}") for i in range(30)])
    assert np.allclose(np.load(out / "dense" / "vectors.npy"), fresh)
    prog = read_progress(out)
    assert prog["stage"] == "done" and prog["done"] == prog["total"] == 30 and prog["rate"] > 0
    idx = open_index(out)
    assert not idx.vectors_pending and idx.manifest.vectors["state"] == "complete"
    assert fill_vectors(out, emb).embedded == 0  # nothing left to do


def test_only_one_process_fills_an_index(tmp_path):
    out = tmp_path / "idx"
    build_small(out, embedder=fake_embedder(), fill=False)
    with _only_filler(out) as mine:
        assert mine
        res = fill_vectors(out, fake_embedder())
        assert res.busy and not res.complete and open_index(out).vectors_pending
    assert fill_vectors(out, fake_embedder()).complete
    assert not (tmp_path / ".idx.fill.lock").exists()


def test_an_add_while_the_build_is_filling_joins_its_plan(tmp_path):
    emb = gated_embedder(hold_after=4)
    out = tmp_path / "idx"
    build_small(out, docs=_docs(10), embedder=emb, fill=False)
    first = FillPlan.load(out)
    t = threading.Thread(target=fill_vectors, args=(out, emb), kwargs={"checkpoint_rows": 2})
    t.start()
    try:
        assert emb.holding.wait(30)  # rows 0-3 are checkpointed, the filler waits before row 4
        idx = open_index(out)
        idx.add([Document(id="zebra", text="zebras and giraffes"), Document(id="d3", text="a new text for three")],
                fill=False)
        plan = FillPlan.load(out)
        # what the old plan had done went into the vectors; row 3 changed and is embedded again
        assert plan.id != first.id and plan.joined and plan.rows == [3, 4, 5, 6, 7, 8, 9, 10]
        assert idx.retriever("hybrid").search("zebras giraffes", 1)[0].id == "zebra"  # BM25 meanwhile
    finally:
        emb.release()
        t.join(30)
    idx = open_index(out)
    assert not idx.vectors_pending and idx.chunks == 11
    vecs = np.load(idx.dir / "dense" / "vectors.npy")  # the add made a new generation: its folder
    assert np.allclose(vecs[3], emb._vec("a new text for three")) and np.allclose(vecs[10], emb._vec("zebras and giraffes"))
    assert np.allclose(vecs[0], emb._vec("document number 0 about topic 0"))
    assert idx.retriever("dense").search("zebras giraffes", 1)[0].id == "zebra"


def test_a_second_build_of_other_inputs_does_not_resume_a_pending_one(tmp_path):
    out = tmp_path / "idx"
    build_small(out, docs=_docs(6), embedder=fake_embedder(), fill=False)
    emb = fake_embedder()
    idx = build_small(out, docs=DOCS, embedder=emb)
    assert idx.chunks == 5 and emb.passages_embedded == 5 and not idx.vectors_pending


def test_one_huge_document_reaches_a_checkpoint_early_in_small_embedder_calls(tmp_path, monkeypatch):
    """A document cut into 10,000-character chunks: each embedder call and each checkpoint is bounded in
    characters, not only in rows, so a kill loses little and progress moves (64 rows per call or 256 per
    checkpoint would be 640 KB and 2.5 MB of text)."""
    from gaji.index.steps import CHECKPOINT_CHARS, EMBED_BATCH_CHARS

    sentence = "Sentence {i} of the one long report says that topic {t} matters a great deal to everyone. "
    text = "".join(sentence.format(i=i, t=i % 13) for i in range(9_000))  # ~820 KB
    emb = fake_embedder()
    calls: list[int] = []
    real = emb.embed_passages

    def recording(texts):
        calls.append(sum(len(t) for t in texts))
        return real(texts)

    monkeypatch.setattr(emb, "embed_passages", recording)
    out = tmp_path / "idx"
    build_small(out, docs=[Document(id="report", title="Report", text=text)], embedder=emb, fill=False,
                lexical=False)
    rows = open_index(out).manifest.counts["rows"]
    assert rows >= 80  # default chunking: ~10,000 characters each
    lengths = [len(c.text) for c in open_index(out).iter_chunks()]
    assert min(lengths[:-1]) >= 9_000 and max(lengths) <= 10_000  # (the last one holds what is left)
    first = (CHECKPOINT_CHARS + EMBED_BATCH_CHARS) // 9_000  # at most the rows of the first checkpoint
    emb.fail_after = first + 8  # killed well before the last rows
    with pytest.raises(KeyboardInterrupt):
        fill_vectors(out, emb, checkpoint_rows=256)
    assert calls and max(calls) <= EMBED_BATCH_CHARS
    emb.fail_after, emb.passages_embedded = None, 0
    res = fill_vectors(out, emb, checkpoint_rows=256)
    assert res.complete and 0 < res.resumed <= first and res.resumed + res.embedded == rows
