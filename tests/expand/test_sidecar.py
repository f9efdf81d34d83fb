"""The expansion files kept with an index's parts (gaji.expand.sidecar): they follow the index from
generation to generation and lose the entries of removed documents."""
from __future__ import annotations

import json

from fakes_expand import expand_llm, recording_embedder
from gaji.expand.generator import Expander
from gaji.expand.index_hook import expansion_step, load_expansions
from gaji.expand.chunk_keywords import keywords_path, read_chunk_keywords, write_chunk_keywords
from gaji.expand.sidecar import EXPAND_DIR, EXPANSIONS_FILE, index_parts
from gaji.index.build import build_index
from gaji.index.store import open_index
from gaji.types import Document

DOCS = [
    Document(id="guam", title="Battle of Guam", text="The Second Battle of Guam was fought in 1944."),
    Document(id="kimchi", title="김치", text="김치는 배추를 소금에 절여 만든 한국의 전통 음식이다."),
    Document(id="python", title="Python", text="Python is a programming language."),
]


def test_expansions_follow_the_generations_and_lose_removed_documents(tmp_path):
    out = tmp_path / "idx"
    step = expansion_step(expander=Expander(expand_llm()), compose="case6")
    build_index(DOCS, out, extension=step, embedder=recording_embedder(), progress=False)
    idx = open_index(out)
    write_chunk_keywords(idx, lambda q: q.split()[:1])
    assert set(read_chunk_keywords(keywords_path(idx))) == {"guam", "kimchi", "python"}
    idx.add([Document(id="owl", title="Owl", text="Owls hunt at night.")])
    assert index_parts(out) == idx.dir and idx.dir.name.startswith("gen-")
    assert set(load_expansions(out)) == {"guam", "kimchi", "python"}  # found in the new generation
    assert idx.retriever("bm25").search("zqexpandterm", 5)  # the composition still applies to the index
    idx.remove(["kimchi"])
    exp = [json.loads(x) for x in (idx.dir / EXPAND_DIR / EXPANSIONS_FILE).read_text(encoding="utf-8").splitlines()]
    assert {e["chunk_id"] for e in exp} == {"guam", "python"}
    assert set(read_chunk_keywords(keywords_path(out))) == {"guam", "python"}
    assert "김치" not in (idx.dir / EXPAND_DIR / EXPANSIONS_FILE).read_text(encoding="utf-8")
