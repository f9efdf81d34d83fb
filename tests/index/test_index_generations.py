"""Generations (gaji.index.generations): an open reader keeps the generation it opened while writers commit
newer ones, notices them and reopens; old generations go once nobody reads them; a dead writer's
leftovers are never read and are cleaned by the next writer."""
from __future__ import annotations

import json
import shutil

import pytest

from gaji.errors import IndexUnusableError
from gaji.index.generations import collect, parts_dir, snapshot
from gaji.index.store import open_index
from gaji.types import Document

from fakes_index import DOCS, build_small, fake_embedder


def test_a_reader_keeps_its_generation_until_it_reopens(tmp_path):
    out = tmp_path / "idx"
    build_small(out)  # generation 1: published with BM25; 2: its vectors filled (the same parts)
    reader = open_index(out)
    assert reader.generation == 2 and reader.dir == out and reader.is_current()
    open_index(out).add([Document(id="zebra", text="Zebras live in Africa.")])  # 3: its rows; 4: their vectors
    # the reader was opened before the add: it still reads the old generation, whole
    assert not reader.is_current() and reader.chunks == 5 and "zebra" not in reader
    assert all(p.id != "zebra" for p in reader.retriever("bm25").search("zebra africa", 3))
    assert [p.id for p in reader.retriever("dense").search("Guido van Rossum", 1)] == ["python"]
    fresh = reader.reopen()
    assert fresh.generation == 4 and fresh.dir == out / "gen-000003" and fresh.is_current()
    assert fresh.retriever("bm25").search("zebra africa", 1)[0].id == "zebra"
    assert fresh.retriever("dense").search("Zebras live in Africa", 1)[0].id == "zebra"
    m = json.loads((out / "manifest.json").read_text())
    assert (m["generation"], m["data"], m["format_version"]) == (4, "gen-000003", 2)
    # the first build's parts are kept while the old reader holds them, then collected
    assert (out / "chunks.jsonl").exists()
    open_index(out).add([Document(id="lion", text="Lions live in Africa too.")])
    assert (out / "chunks.jsonl").exists() and reader.get_chunk("guam").doc_id == "guam"
    del reader, fresh  # the last readers of generations 1 and 2 let go
    open_index(out).add([Document(id="owl", text="Owls hunt at night.")])
    assert not (out / "chunks.jsonl").exists() and not (out / "lexical").exists()
    assert sorted(p.name for p in out.iterdir() if p.name != "progress.json") == [
        "gen-000007", "manifest.json", "writer.lock"]
    assert open_index(out).chunks == 8


def test_a_rebuild_is_a_new_generation_of_the_same_folder(tmp_path):
    out = tmp_path / "idx"
    build_small(out)
    reader = open_index(out)
    idx = build_small(out, docs=DOCS[:2])  # published as generation 3, its vectors as 4
    assert idx.generation == 4 and idx.chunks == 2 and reader.chunks == 5 and not reader.is_current()
    assert reader.retriever("bm25").search("김치", 1)[0].id == "kimchi"
    assert not (tmp_path / ".idx.building").exists() and (out / "writer.lock").exists()


def test_leftovers_of_dead_writers_are_ignored_then_cleaned(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    open_index(out).add([Document(id="zebra", text="Zebras live in Africa.")])
    (out / ".tmp-dead1").mkdir()  # a writer killed while changing its copy
    (out / ".tmp-dead1" / "chunks.jsonl").write_text("garbage")
    shutil.copytree(out / "gen-000002", out / "gen-000003")  # killed after its rename, before the switch
    (out / "gen-000003" / "chunks.jsonl").write_text("garbage")
    idx = open_index(out)
    assert idx.generation == 2 and idx.get_chunk("zebra").text == "Zebras live in Africa."
    res = idx.add([Document(id="lion", text="Lions live in Africa too.")])
    assert res.added == 1 and idx.generation == 3 and idx.get_chunk("lion").doc_id == "lion"
    assert sorted(p.name for p in out.iterdir() if p.name != "progress.json") == [
        "gen-000003", "manifest.json", "writer.lock"]


def test_collect_spares_pinned_generations(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    open_index(out).add([Document(id="a", text="alpha")])
    pinned = snapshot(out)
    open_index(out).add([Document(id="b", text="beta")])
    assert "gen-000002" not in collect(out) and (out / "gen-000002").exists()
    pinned.release()
    assert collect(out) == ["gen-000002"] and parts_dir(out) == out / "gen-000003"


def test_missing_parts_are_a_clear_error(tmp_path):
    out = tmp_path / "idx"
    build_small(out, dense=False)
    (out / "chunks.jsonl").unlink()
    with pytest.raises(IndexUnusableError, match="parts of this index are missing"):
        open_index(out)
    m = json.loads((out / "manifest.json").read_text())
    m["data"] = "../elsewhere"
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexUnusableError, match="names no generation folder"):
        open_index(out)


def test_an_index_from_before_generations_opens_and_moves_on(tmp_path):
    out = tmp_path / "idx"
    build_small(out, embedder=fake_embedder())
    m = json.loads((out / "manifest.json").read_text())
    for k in ("generation", "data"):
        del m[k]
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "documents.json").unlink()
    idx = open_index(out)
    assert idx.generation == 0 and idx.chunks == 5
    idx.add([Document(id="zebra", text="Zebras live in Africa.")])  # generation 1, its vectors 2
    assert idx.generation == 2 and idx.dir == out / "gen-000001" and idx.chunks == 6
    assert idx.retriever("dense").search("zebras africa", 1)[0].id == "zebra"


def test_an_index_put_in_place_syncs_its_parent_folder(tmp_path, monkeypatch):
    from gaji.index import generations
    from gaji.index.manifest import Manifest

    synced: list[str] = []
    monkeypatch.setattr(generations, "fsync_dir", lambda d: synced.append(str(d)))
    (tmp_path / ".idx.building").mkdir()
    generations.install(tmp_path / ".idx.building", tmp_path / "idx", Manifest(complete=True))
    assert (tmp_path / "idx").is_dir() and synced[-1] == str(tmp_path)
