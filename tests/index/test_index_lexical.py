"""BM25 on tantivy (gaji.index.lexical) against a hand-written reference BM25."""
import math
from collections import Counter

import pytest

from gaji.index.lexical import LexicalIndex

K1, B = 1.2, 0.75

DOCS = [
    "battl guam island recaptur american 1944",
    "battl manila philippin 1945 battl citi",
    "guam island territori unit state",
    "kimchi cabbag 김치 배추 전통",
    "해적 캐리비안 시리즈 관객 수 해적",
    "a b c d e f g h i j k l m n o p q r s t",
    "guam",
]


def reference_bm25(docs: list[list[str]], query: list[str]) -> dict[int, float]:
    """Okapi BM25 as tantivy computes it: idf = ln(1 + (N - n + 0.5)/(n + 0.5)), tf*(k1+1)/(tf + k1*(1-b+b*dl/avgdl))."""
    n_docs = len(docs)
    avgdl = sum(len(d) for d in docs) / n_docs
    df = Counter(t for d in docs for t in set(d))
    scores: dict[int, float] = {}
    for i, d in enumerate(docs):
        tf = Counter(d)
        s = 0.0
        for term, qtf in Counter(query).items():
            if tf[term] == 0:
                continue
            idf = math.log(1 + (n_docs - df[term] + 0.5) / (df[term] + 0.5))
            s += qtf * idf * tf[term] * (K1 + 1) / (tf[term] + K1 * (1 - B + B * len(d) / avgdl))
        if s > 0:
            scores[i] = s
    return scores


@pytest.fixture(scope="module")
def lex(tmp_path_factory):
    path = tmp_path_factory.mktemp("lex")
    LexicalIndex.create(path)
    idx = LexicalIndex(path)
    w = idx.writer()
    for row, d in enumerate(DOCS):
        w.add(row, d.split())
    w.close()
    idx.reload()
    return idx


@pytest.mark.parametrize("query", [
    ["guam"], ["battl", "guam"], ["battl", "battl", "manila"], ["해적", "관객"], ["island", "1944", "unit", "kimchi"],
    ["a", "guam", "t"],
])
def test_scores_match_reference(lex, query):
    ref = reference_bm25([d.split() for d in DOCS], query)
    got = dict(lex.search(query, k=len(DOCS)))
    assert set(got) == set(ref)
    for row, s in ref.items():
        assert got[row] == pytest.approx(s, rel=1e-4)
    # ranked best first
    scores = [s for _, s in lex.search(query, k=len(DOCS))]
    assert scores == sorted(scores, reverse=True)


def test_no_terms_unknown_terms_and_k(lex):
    assert lex.search([], 5) == []
    assert lex.search(["zzz-unknown"], 5) == []
    assert lex.search(["guam"], 0) == []
    assert len(lex.search(["guam", "battl"], 2)) == 2


def test_query_syntax_is_not_parsed(lex):
    # characters that tantivy's query parser would treat as syntax are plain terms here
    for q in (["guam:"], ['"guam'], ["(battl"], ["AND"], ["*"], ["guam^2"], ["-guam"]):
        assert lex.search(q, 5) == []


def test_terms_with_spaces_are_split(lex):
    assert dict(lex.search(["battl guam"], 7)) == dict(lex.search(["battl", "guam"], 7))


def test_delete_and_replace(tmp_path):
    LexicalIndex.create(tmp_path)
    idx = LexicalIndex(tmp_path)
    w = idx.writer()
    for row, d in enumerate(["x y", "x z", "x"]):
        w.add(row, d.split())
    w.close()
    w = idx.writer()
    w.delete_many([0, 2])
    w.add(0, ["x", "q"])
    w.close()
    idx.reload()
    rows = sorted(r for r, _ in idx.search(["x"], 10))
    assert rows == [0, 1] and idx.num_docs == 2
