"""Chunk expansion sharded over Ray actors (gaji/distributed/expand.py): the same expansions as one process on
Korean and English chunks, resume from a partial (torn) file, token accounting summed over the workers,
failed chunks retried by the next run, and the `gaji expand run --ray` / `gaji index build --expand --ray` CLI."""
from __future__ import annotations

import json
from pathlib import Path

from gaji.distributed.expand import RayExpander, shards_of
from gaji.expand.generator import Expander, ExpansionStore
from gaji.types import Chunk

TEXTS = [
    ("d1#0", "Seoul", "Seoul is the capital of South Korea and lies on the Han River.", "en"),
    ("d2#0", "서울", "서울은 대한민국의 수도이며 한강이 도시를 가로지른다.", "ko"),
    ("d3#0", "Paris", "Paris is the capital and largest city of France, on the Seine.", "en"),
    ("d4#0", "부산", "부산은 대한민국 제2의 도시이자 가장 큰 항구 도시이다.", "ko"),
    ("d5#0", "Guam", "The Second Battle of Guam was fought from 21 July to 10 August 1944.", "en"),
    ("d6#0", "한강", "한강은 서울을 지나 황해로 흐르는 강이다.", "ko"),
    ("d7#0", "Rome", "Rome is the capital city of Italy and was founded, by legend, in 753 BC.", "en"),
]


def _chunks() -> list[Chunk]:
    return [Chunk(id=i, doc_id=i.split("#")[0], text=t, title=ti, lang=lg) for i, ti, t, lg in TEXTS]


def scripted_builder(fail_on: str | None = None):
    """A picklable LLM builder for the Ray workers (a closure: cloudpickle ships it by value). The reply is
    derived from the chunk in the request, so every chunk gets its own expansion; `fail_on` makes every
    request whose chunk contains that text raise (tests the failure path)."""

    def build():
        import json as _json
        import re as _re

        from gaji.llm.scripted import ScriptedLLM

        def reply(req):
            chunk = req.messages[-1]["content"].split("[Chunk]: ", 1)[1]
            if fail_on and fail_on in chunk:
                raise RuntimeError(f"scripted failure on {fail_on!r}")
            words = _re.findall(r"\w+", chunk)
            return _json.dumps({"title": f"About {' '.join(words[:3])}",
                                "questions": [f"What is {words[0]}?", f"{words[-1]} 관련 질문은?", f"Why {words[1]}?"]},
                               ensure_ascii=False)

        llm = ScriptedLLM([(r"\[Chunk\]", reply)], name="scripted-expander")
        llm.parallel_slots = 2
        return llm

    return build


def _plain(store_path: Path) -> dict[str, dict]:
    """The expansions file without what depends on timing."""
    return {cid: {k: v for k, v in e.to_dict().items() if k != "seconds"}
            for cid, e in ExpansionStore(store_path).load().items()}


def test_shards_of_cover_in_order():
    assert shards_of(list(range(5)), 2) == [[0, 1], [2, 3], [4]]
    assert shards_of([], 3) == []
    assert shards_of([1, 2], 0) == [[1], [2]]


def test_ray_expansion_matches_single_process_and_sums_accounting(ray_local, tmp_path):
    chunks = _chunks()
    single = Expander(scripted_builder()()).run(chunks, ExpansionStore(tmp_path / "single.jsonl"))
    assert single.generated == len(chunks) and not single.failed

    rx = RayExpander(scripted_builder(), workers=2, address="local", shard_size=2)
    res = rx.run(chunks, ExpansionStore(tmp_path / "ray.jsonl"))
    assert rx.model == "scripted-expander" == single.model
    assert _plain(tmp_path / "ray.jsonl") == _plain(tmp_path / "single.jsonl")
    assert len({e["title"] for e in _plain(tmp_path / "ray.jsonl").values()}) == len(chunks)  # not one reply for all
    langs = {e.chunk_id: e.lang for e in res.expansions.values()}
    assert langs["d2#0"] == "ko" and langs["d1#0"] == "en"
    # the questions came from the Korean prompt for Korean chunks and the English one for English chunks
    assert res.generated == len(chunks) and res.reused == 0 and not res.failed

    # accounting: the sums over the workers equal the single-process run, and each worker did a share
    assert res.prompt_tokens == single.prompt_tokens > 0
    assert res.completion_tokens == single.completion_tokens > 0
    assert res.cached_tokens == single.cached_tokens
    st = res.stats()
    per = st["ray"]["per_worker"]
    assert len(per) == 2 and len({w["pid"] for w in per}) == 2 and all(w["chunks"] > 0 for w in per)
    assert sum(w["chunks"] for w in per) == len(chunks)
    assert sum(w["shards"] for w in per) == 4  # 7 chunks in shards of 2
    assert sum(w["prompt_tokens"] for w in per) == single.prompt_tokens
    assert sum(w["completion_tokens"] for w in per) == single.completion_tokens
    assert st["generated"] == len(chunks) and st["prompt_tokens"] == single.prompt_tokens
    assert st["slots"] == 4 and st["ray"]["workers"] == 2 and st["ray"]["startup_s"] > 0


def test_ray_expansion_resumes_a_partial_file(ray_local, tmp_path):
    chunks = _chunks()
    full = Expander(scripted_builder()()).run(chunks, ExpansionStore(tmp_path / "full.jsonl"))
    # a file left by a crash: three finished chunks, then a record torn mid-write
    lines = [json.dumps(full.expansions[c.id].to_dict(), ensure_ascii=False) for c in chunks[:3]]
    torn = json.dumps(full.expansions[chunks[3].id].to_dict(), ensure_ascii=False)[:40]
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(lines) + "\n" + torn, encoding="utf-8")

    on_disk_when_done = []  # each expansion is in the file by the time it is reported (written as shards return)
    res = RayExpander(scripted_builder(), workers=2, address="local", shard_size=1).run(
        chunks, ExpansionStore(part), on_done=lambda e: on_disk_when_done.append(e.chunk_id in ExpansionStore(part).load()))
    assert res.reused == 3 and res.generated == 4 and not res.failed
    assert on_disk_when_done == [True] * 4
    assert sorted(w["chunks"] for w in res.stats()["ray"]["per_worker"]) != [0, 4]  # both workers got shards
    assert _plain(part) == _plain(tmp_path / "full.jsonl")
    # tokens are counted for the chunks generated in this run only
    assert res.prompt_tokens == sum(full.expansions[c.id].prompt_tokens for c in chunks[3:])

    again = RayExpander(scripted_builder(), workers=2, address="local").run(chunks, ExpansionStore(part))
    assert again.generated == 0 and again.reused == len(chunks) and again.prompt_tokens == 0


def test_failed_chunks_are_left_for_the_next_run(ray_local, tmp_path):
    chunks = _chunks()
    store = tmp_path / "x.jsonl"
    res = RayExpander(scripted_builder(fail_on="부산"), workers=2, address="local", shard_size=3).run(
        chunks, ExpansionStore(store))
    assert [cid for cid, _ in res.failed] == ["d4#0"] and "scripted failure" in res.failed[0][1]
    assert res.generated == len(chunks) - 1 and "d4#0" not in ExpansionStore(store).load()
    assert sum(w["failed"] for w in res.stats()["ray"]["per_worker"]) == 1

    res2 = RayExpander(scripted_builder(), workers=2, address="local").run(chunks, ExpansionStore(store))
    assert res2.generated == 1 and res2.reused == len(chunks) - 1 and not res2.failed
    assert len(ExpansionStore(store).load()) == len(chunks)


def _corpus(tmp_path: Path) -> Path:
    p = tmp_path / "mini.jsonl"
    p.write_text("".join(json.dumps({"id": i.split("#")[0], "title": ti, "text": t}, ensure_ascii=False) + "\n"
                         for i, ti, t, _ in TEXTS), encoding="utf-8")
    return p


def test_expand_run_cli_with_ray(ray_local, tmp_path, capsys):
    from gaji.cli.main import main

    corpus = _corpus(tmp_path)
    llm = 'scripted:{"title": "고정 제목", "questions": ["What is it?", "무엇인가?", "Why?"]}'
    args = ["expand", "run", str(corpus), "--llm", llm, "--no-progress"]
    assert main(args + ["--out", str(tmp_path / "one.jsonl")]) == 0
    capsys.readouterr()
    assert main(args + ["--out", str(tmp_path / "ray.jsonl"), "--ray", "local", "--workers", "2"]) == 0
    out = capsys.readouterr()
    st = json.loads(out.out.strip().splitlines()[0])
    assert st["generated"] == len(TEXTS) and st["ray"]["workers"] == 2
    assert [w["chunks"] for w in st["ray"]["per_worker"]] in ([4, 3], [3, 4])  # default shards: 4 slots, both busy
    assert f"{len(TEXTS)}/{len(TEXTS)} chunks expanded" in out.err
    assert _plain(tmp_path / "ray.jsonl") == _plain(tmp_path / "one.jsonl")

    # rerun: everything reused, nothing asked
    assert main(args + ["--out", str(tmp_path / "ray.jsonl"), "--ray", "local", "--workers", "2"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[0])["reused"] == len(TEXTS)


def test_index_build_expand_with_ray(ray_local, tmp_path, capsys):
    from gaji.cli.main import main
    from gaji.expand.index_hook import load_expansions

    corpus = _corpus(tmp_path)
    llm = 'scripted:{"title": "고정 제목", "questions": ["What is it?", "무엇인가?", "Why?"]}'
    rc = main(["index", "build", str(corpus), "--out", str(tmp_path / "idx"), "--no-dense", "--no-progress",
               "--expand", "--llm", llm, "--ray", "local", "--expand-workers", "2"])
    assert rc == 0, capsys.readouterr()
    exps = load_expansions(tmp_path / "idx")
    assert len(exps) == len(TEXTS) and all(e.title == "고정 제목" for e in exps.values())
    assert f"{len(TEXTS)} chunks expanded" in capsys.readouterr().out
