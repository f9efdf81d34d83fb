"""The chunk-keywords file (gaji.expand.chunk_keywords): each expanded chunk's keywords, written and read back."""
import json

import pytest

from fakes_expand import KEYWORD_DOCS, expanded_keyword_index, recording_embedder
from gaji.errors import ConfigError, InputError
from gaji.expand.chunk_keywords import chunk_keywords, keywords_path, read_chunk_keywords, write_chunk_keywords
from gaji.index.build import build_index

KW = {"How do you bake apple pie?": ["apple pie"], "What sugar goes into pie?": ["sugar", "apple pie"],
      "When is the orchard harvest?": ["orchard"], "미세먼지 경보는 언제 발령되나요?": ["미세먼지 경보"]}


@pytest.fixture
def idx(tmp_path):
    i = expanded_keyword_index(tmp_path / "i")
    yield i
    i.close()


def test_a_chunks_keywords_are_its_questions_keywords_in_first_seen_order(idx):
    assert chunk_keywords(idx.get_chunk("a"), lambda q: KW.get(q, [])) == ["apple pie", "sugar"]
    assert chunk_keywords(idx.get_chunk("d"), lambda q: KW.get(q, [])) == ["미세먼지 경보"]


def test_the_file_roundtrips(idx):
    st = write_chunk_keywords(idx, lambda q: KW.get(q, []), source={"tagger": "test"})
    assert st["chunks"] == 4 and st["keywords"] == 4 and st["without_keywords"] == 1
    path = keywords_path(idx.path)
    assert json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0]) == {
        "kind": "gaji-chunk-keywords", "source": {"tagger": "test"}}
    got = read_chunk_keywords(path)
    assert got == {"a": ["apple pie", "sugar"], "b": ["orchard"], "c": [], "d": ["미세먼지 경보"]}


def test_a_bad_record_names_its_file_and_line(tmp_path):
    bad = tmp_path / "kw.jsonl"
    bad.write_text(json.dumps({"id": "a", "keywords": ["x"]}) + "\n" + json.dumps({"id": "b", "keywords": "x"}) + "\n")
    with pytest.raises(InputError) as e:
        read_chunk_keywords(bad)
    assert str(e.value).startswith(f"{bad}:2:")


def test_plain_index_cannot_make_chunk_keywords(tmp_path):
    i = build_index(KEYWORD_DOCS, tmp_path / "p", embedder=recording_embedder(), progress=False)
    with pytest.raises(ConfigError, match="no expanded chunks"):
        write_chunk_keywords(i, lambda q: [])
    i.close()
