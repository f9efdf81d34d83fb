"""The chunk store (gaji.index.chunkstore): rows on disk, random access, deleted rows."""
from gaji.index.chunkstore import ChunkStore
from gaji.types import Chunk

ROWS = [Chunk(id="a#0", doc_id="a", text="첫 번째 조각", title="가"), None, Chunk(id="b#0", doc_id="b", text="second")]


def test_write_and_read_rows_with_a_deleted_one(tmp_path):
    assert ChunkStore.write(tmp_path, ROWS) == 3
    cs = ChunkStore(tmp_path)
    try:
        assert len(cs) == 3 and cs.get(0) == ROWS[0] and cs.get(1) is None and cs.get(2).text == "second"
        assert cs.rows() == ROWS and [c.id for c in cs] == ["a#0", "b#0"]
        assert cs.row_of("b#0") == 2 and cs.row_of("nope") is None
        assert cs.id_pairs() == [["a#0", "a"], None, ["b#0", "b"]] and list(cs.live_mask()) == [True, False, True]
    finally:
        cs.close()


def test_empty_store(tmp_path):
    ChunkStore.write(tmp_path, [])
    cs = ChunkStore(tmp_path)
    assert len(cs) == 0 and cs.rows() == [] and list(cs) == []
    cs.close()
