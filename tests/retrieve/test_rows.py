"""Index rows to Passages (gaji.retrieve.rows): location and span metadata carried, missing rows skipped."""
import pytest

from gaji.errors import ConfigError
from gaji.retrieve.rows import check_k, passages_at, to_passage
from gaji.types import Chunk


class Rows:
    def __init__(self, chunks):
        self.chunks = chunks

    def chunk_at(self, row):
        return self.chunks.get(row)


WHOLE = Chunk(id="kimchi", doc_id="kimchi", text="김치는 배추로 만든다.", title="김치", lang="ko")
PART = Chunk(id="guam#1", doc_id="guam", text="recaptured in 1944", title="Battle of Guam", start=40, end=58, lang="en")


def test_a_whole_document_has_no_span_and_a_chunk_has_one():
    p = to_passage(WHOLE, 2, 1, "bm25")
    assert (p.id, p.doc_id, p.title, p.score, p.rank, p.source) == ("kimchi", "kimchi", "김치", 2.0, 1, "bm25")
    assert p.metadata == {"lang": "ko"}
    q = to_passage(PART, 0.5, 3, "hybrid", bm25_rank=None)
    assert q.metadata == {"lang": "en", "start": 40, "end": 58, "bm25_rank": None}


def test_rows_the_index_no_longer_holds_are_skipped_and_ranks_stay_dense():
    got = passages_at(Rows({0: WHOLE, 2: PART}), [(2, 3.0), (1, 2.0), (0, 1.0)], "bm25")
    assert [(p.id, p.rank) for p in got] == [("guam#1", 1), ("kimchi", 2)]


def test_check_k():
    assert check_k("3") == 3 and check_k(0) == 0
    with pytest.raises(ConfigError, match="k must be >= 0, got -2"):
        check_k(-2)
    with pytest.raises(ConfigError, match="k must be an integer, got None"):
        check_k(None)
