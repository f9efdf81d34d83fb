"""Searching while the vectors are being filled (gaji.index.pending): BM25 answers and says so, then hybrid."""
import threading

import pytest

from gaji.api import Gaji
from gaji.config import Settings
from gaji.index.fill import fill_vectors
from gaji.index.pending import BM25UntilVectors, vectors_note, vectors_status
from gaji.index.store import open_index
from gaji.llm.scripted import ScriptedLLM

from fakes_index import DOCS, build_small, gated_embedder


@pytest.fixture
def filling(tmp_path):
    """An index published with BM25 whose fill is caught after 2 of its 5 passages (in a thread)."""
    emb = gated_embedder(hold_after=2)
    out = tmp_path / "idx"
    idx = build_small(out, embedder=emb, fill=False)
    assert idx.vectors_pending
    t = threading.Thread(target=fill_vectors, args=(out, emb), kwargs={"checkpoint_rows": 2})
    t.start()
    assert emb.holding.wait(30)
    try:
        yield out, emb, t
    finally:
        emb.release()
        t.join(30)


def test_an_ask_while_vectors_are_filled_answers_with_bm25_and_says_so_then_hybrid(filling):
    out, emb, thread = filling
    g = Gaji(index=str(out), llm=ScriptedLLM(default="Answer: 1944\nSources: [1]"),
             settings=Settings(retriever="hybrid", method="oner", k=2, retries=0))
    trace = g.ask("When was the Second Battle of Guam?")
    assert trace.retriever == "bm25" and trace.status == "ok"
    assert trace.passages and all(p.source == "bm25" for p in trace.passages.values())
    assert next(iter(trace.passages)) == "guam"
    assert isinstance(g.retriever(), BM25UntilVectors)
    status = vectors_status(g.index)
    assert status["state"] == "pending" and status["total"] == 5 and status["done"] == 2 and status["running"]
    note = vectors_note(g.index)
    assert "still being computed" in note and "2 of 5" in note and "BM25" in note
    assert g.retriever().describe()["requested"] == "hybrid"

    emb.release()
    thread.join(30)
    again = g.ask("When was the Second Battle of Guam?")  # the same Gaji, the same retriever object
    assert again.retriever == "hybrid" and all(p.source == "hybrid" for p in again.passages.values())
    assert vectors_note(g.index) is None and vectors_status(g.index) == {"state": "complete"}


def test_dense_search_waits_for_the_vectors_too_and_bm25_is_unchanged(filling):
    out, emb, thread = filling
    idx = open_index(out)
    dense = idx.retriever("dense")
    assert dense.name == "bm25" and dense.search("Guido van Rossum", 1)[0].id == "python"
    assert idx.retriever("bm25").name == "bm25"  # asked for BM25: plain BM25, nothing to wait for
    assert not isinstance(idx.retriever("bm25"), BM25UntilVectors)
    emb.release()
    thread.join(30)
    assert dense.name == "dense" and dense.search("Guido van Rossum programming language", 1)[0].id == "python"


def test_cli_ask_prints_the_note_while_pending(filling, capsys):
    from gaji.cli.main import main

    out, _, _ = filling
    rc = main(["ask", "When was the Second Battle of Guam?", "--index", str(out), "--method", "oner",
               "--retriever", "hybrid", "--llm", "scripted"])
    assert rc in (0, 1)  # the scripted default answer may not parse; the note is what is tested
    err = capsys.readouterr().err
    assert "note: vectors are still being computed" in err and "hybrid search switches on" in err


def test_an_index_without_vectors_has_no_note(tmp_path):
    idx = build_small(tmp_path / "lex", dense=False)
    assert vectors_status(idx) == {"state": "none"} and vectors_note(idx) is None and not idx.vectors_pending


def test_a_dense_only_index_says_why_it_cannot_answer_yet(tmp_path):
    from gaji.errors import IndexUnusableError

    idx = build_small(tmp_path / "dense", lexical=False, fill=False)
    with pytest.raises(IndexUnusableError, match="no BM25 part to answer meanwhile"):
        idx.retriever("dense")
    fill_vectors(idx.path, idx.embedder)
    assert open_index(idx.path).retriever("dense").search("Guido van Rossum programming language", 1)[0].id == "python"
