import random

import pytest

from gaji.eval.metrics.retrieval import GoldRef, RetrievedDoc, first_match_ranks, retrieval_scores


def docs(*ids, titles=None):
    titles = titles or {}
    return [RetrievedDoc(i, titles.get(i, "")) for i in ids]


def test_recall_and_top_by_id():
    gold = [GoldRef("a"), GoldRef("b")]
    r = retrieval_scores(docs("x", "a", "y", "z", "b"), gold, ks=(1, 2, 5))
    assert r == {"recall@1": 0.0, "recall@2": 0.5, "recall@5": 1.0, "top@1": 0.0, "top@2": 1.0, "top@5": 1.0}


def test_chunks_of_one_document_count_once():
    # a, a (second chunk), b: b is the 2nd document, not the 3rd retrieved item
    r = retrieval_scores(docs("a", "a", "b"), [GoldRef("b")], ks=(2,))
    assert r["recall@2"] == 1.0


def test_gold_by_title_when_no_id():
    gold = [GoldRef("", "Battle of Guam (1944)"), GoldRef("", "Battle of Manila (1945)")]
    ret = docs("1", "2", titles={"1": "battle of guam (1944)", "2": "Other"})
    assert first_match_ranks(ret, gold) == [1, None]
    assert retrieval_scores(ret, gold, ks=(2,))["recall@2"] == 0.5


def test_title_matching_on_request():
    gold = [GoldRef("hotpotqa-1", "Guam")]
    ret = docs("other-id", titles={"other-id": "Guam"})
    assert retrieval_scores(ret, gold, ks=(1,), match="id")["recall@1"] == 0.0
    assert retrieval_scores(ret, gold, ks=(1,), match="title")["recall@1"] == 1.0


def test_no_gold_is_none_and_duplicate_gold_counts_once():
    assert retrieval_scores(docs("a"), [], ks=(1,)) is None
    r = retrieval_scores(docs("a"), [GoldRef("a"), GoldRef("a"), GoldRef("b")], ks=(1,))
    assert r["recall@1"] == 0.5


def test_bad_match_mode():
    with pytest.raises(ValueError):
        first_match_ranks(docs("a"), [GoldRef("a")], match="fuzzy")


def test_recall_agrees_with_pytrec_eval_on_a_sample():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(7)
    pool = [f"d{i}" for i in range(60)]
    qrels, run, mine = {}, {}, {}
    for q in range(40):
        gold = rng.sample(pool, rng.randint(1, 4))
        ranked = rng.sample(pool, 20)
        qid = f"q{q}"
        qrels[qid] = {g: 1 for g in gold}
        run[qid] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}  # higher score = better rank
        mine[qid] = retrieval_scores(docs(*ranked), [GoldRef(g) for g in gold], ks=(2, 5, 10, 15))
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recall.2,5,10,15"})
    theirs = ev.evaluate(run)
    for qid, m in theirs.items():
        for k in (2, 5, 10, 15):
            assert mine[qid][f"recall@{k}"] == pytest.approx(m[f"recall_{k}"]), (qid, k)
