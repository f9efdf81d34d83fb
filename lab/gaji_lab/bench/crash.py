"""`gaji bench crash`: kill -9 index writers at random points, again and again, and check the index after
every kill.

    res = run_crash("runs/crash", kills=200, seed=0)
    print(markdown(res))

The writers: a rebuild of the index and builds of new indexes, `add`, `remove`, `sync` (of a folder whose
files are edited, deleted and added between syncs) and uploads to a running `gaji serve` (then the server
is the writer killed). Each write runs in a child process that gets SIGKILL after a random delay within
the time the same write takes when left alone. The same write is first done to completion on a copy of
the index: that copy is the state "after". After the kill the index must

- open (a new index being built may instead be absent: the state "before");
- have parts that agree with each other (gaji.index.verify);
- hold exactly the documents and chunks of the state before or of the state after;
- answer a fixed query (BM25, and dense where it has vectors) exactly as that state's index does;
- or, killed between a commit and the fill of its vectors ("after+fill"), hold the state after with its
  vectors pending and BM25 answering as after; `gaji.index.fill` then completes them, and the index is
  checked again.

The next writer then works on the index as the kill left it: cleaning up after a dead writer is part of
the test. Three kinds of index take turns: BM25 only (Korean character bigrams: fast), BM25 + E5 vectors
(exact search), E5 vectors in an HNSW graph; `vector_share` of the writes go to the two with vectors.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from gaji.errors import IndexUnusableError

WORDS = ("penguin ocean ice river mountain battle king language program music forest city rain snow wind "
         "history science school market bridge garden 김치 배추 바다 강 산 전투 왕 언어 음악 숲 도시 비 눈 바람 "
         "역사 과학 문화 학교 시장 다리 정원 한글 세종 훈민정음").split()
QUERY = "penguin ocean 바다 전투 music 한글"
CHUNKING = {"size": 160, "overlap": 0}
KINDS = {  # name -> build settings
    "bm25": {"lexical": True, "dense": False, "dense_backend": "auto"},
    "hybrid": {"lexical": True, "dense": True, "dense_backend": "exact"},
    "hnsw": {"lexical": False, "dense": True, "dense_backend": "hnsw"},
}
OPS = ("add", "remove", "sync", "build", "fresh", "upload")


@dataclass
class Trial:
    n: int
    kind: str
    op: str
    delay_s: float
    killed: bool  # the writer was still at work when it got SIGKILL
    state: str = ""  # "before" | "after" | "" (not reached)
    left: str = ""  # what the dead writer left behind (where the kill landed)
    problems: list[str] = field(default_factory=list)


class _Corpus:
    """Random short ko/en documents with unique ids."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.n = 0

    def doc(self, prefix: str = "d") -> dict[str, str]:
        self.n += 1
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(8, 45))]
        return {"id": f"{prefix}{self.n}", "title": f"{prefix.upper()} {self.n}", "text": " ".join(words) + "."}

    def docs(self, k: int, prefix: str = "d") -> list[dict[str, str]]:
        return [self.doc(prefix) for _ in range(k)]


def _jsonl(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


# -- the writes ------------------------------------------------------------------------------------
def do_write(spec: dict[str, Any]) -> None:
    """One write, as the child process (or the reference run on a copy) does it."""
    from gaji.index.build import build_index
    from gaji.index.writer import add_documents, remove_documents, sync_source
    from gaji.types import Document

    op, index = spec["op"], spec["index"]
    if op in ("add", "upload"):
        add_documents(index, [Document(**d, source="upload" if op == "upload" else "") for d in spec["docs"]])
    elif op == "remove":
        remove_documents(index, spec["ids"], missing_ok=True)
    elif op == "sync":
        sync_source(index, spec["source"])
    else:  # build, fresh
        build_index([spec["corpus"]], index, chunking=CHUNKING, progress=False, korean_analyzer="bigram",
                    **KINDS[spec["kind"]])


CHILD = """
import json, sys
from gaji_lab.bench.crash import child
child(json.loads(sys.argv[1]))
"""


def _warm_up(kind: str) -> None:
    """Run every code path of a write once on a scratch index, so that the timed write is warm like the
    reference run in the harness process (imports, analyser, model, tantivy, faiss)."""
    import tempfile

    from gaji.index.writer import remove_documents

    with tempfile.TemporaryDirectory() as tmp:
        corpus = _jsonl(Path(tmp) / "c.jsonl", [{"id": "w1", "text": "penguin 바다"}, {"id": "w2", "text": "강 산"}])
        do_write({"op": "build", "index": f"{tmp}/i", "corpus": str(corpus), "kind": kind})
        do_write({"op": "add", "index": f"{tmp}/i", "docs": [{"id": "w3", "title": "t", "text": "ice 눈"}]})
        remove_documents(f"{tmp}/i", ["w1"])


def child(spec: dict[str, Any]) -> None:
    """The child process: warm up, say "ready", wait for "go", write, say "done" and how long it took."""
    _warm_up(spec["kind"])
    print("ready", flush=True)
    sys.stdin.readline()
    t0 = time.perf_counter()
    do_write(spec)
    print(f"done {time.perf_counter() - t0:.4f}", flush=True)


def _kill_child(spec: dict[str, Any], delay_s: float) -> float | None:
    """Run the write in a child and SIGKILL it `delay_s` after it starts. None when it was killed at work,
    else the seconds the write took."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(spec, ensure_ascii=False)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"the writer did not start: {line!r} {proc.stderr.read()[-600:]}")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        time.sleep(delay_s)
        alive = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        if alive:
            return None
        out = proc.stdout.read().split()
        if proc.returncode != 0 or len(out) < 2 or out[0] != "done":
            raise RuntimeError(f"the writer failed by itself: {proc.stderr.read()[-600:]}")
        return float(out[1])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def leftovers(target: Path, op: str) -> str:
    """Where a kill landed, judged by what the writer left: its work folder ("work folder"), a generation
    folder it renamed but did not switch to ("uncommitted generation"), a build folder, or nothing."""
    from gaji.index.manifest import read_manifest

    building = target.parent / f".{target.name}.building"
    built = op in ("build", "fresh") and building.exists() and any(p.name != "writer.lock" for p in building.iterdir())
    if not target.exists():
        return "build folder" if built else "nothing"
    if any(p.name.startswith(".tmp-") for p in target.iterdir()):
        return "work folder"
    try:
        current = read_manifest(target).data
    except IndexUnusableError:
        return "build folder" if built else "no manifest"
    gens = sorted(p.name for p in target.iterdir() if p.name.startswith("gen-"))
    if gens and gens[-1] > (current or ""):
        return "uncommitted generation"
    return "build folder" if built else "nothing"


# -- what an index holds and answers -----------------------------------------------------------
def fingerprint(path: Path, dense: bool = True) -> tuple[str, list]:
    """(digest of the chunks: ids, documents, titles, texts; the answer to QUERY), of an index that opens.
    `dense=False`: the BM25 answer only (while the vectors are pending)."""
    from gaji.index.store import open_index

    idx = open_index(path)
    h = hashlib.sha256()
    for c in sorted(idx.iter_chunks(), key=lambda c: c.id):
        h.update(json.dumps([c.id, c.doc_id, c.title, c.text], ensure_ascii=False).encode("utf-8"))
    answer: list = []
    for name, on in (("bm25", idx.has_lexical), ("dense", idx.has_dense and dense)):
        if on:
            answer.append([name, [(p.id, round(p.score, 3)) for p in idx.retriever(name).search(QUERY, 5)]])
    return h.hexdigest(), answer


def _state(path: Path, before: tuple | None, after: tuple) -> tuple[str, list[str], bool]:
    """(state, problems, whether the vectors were pending) of an index that opens."""
    from gaji.index.store import open_index
    from gaji.index.verify import verify

    idx = open_index(path)
    problems, pending = verify(idx), idx.vectors_pending
    del idx
    got = fingerprint(path, dense=not pending)
    state = "before" if before is not None and got[0] == before[0] else "after" if got[0] == after[0] else ""
    if not state:
        return "", problems + ["its chunks are neither those before nor those after the write"], pending
    want = before if state == "before" else after
    if got[1] != [a for a in want[1] if a[0] == "bm25" or not pending]:
        problems.append(f"its answer {got[1]} is not the answer of the state {state}: {want[1]}")
    return state, problems, pending


def check(path: Path, before: tuple | None, after: tuple) -> tuple[str, list[str]]:
    """Which state the index at `path` is in ("before"/"after") and what is wrong with it. A kill between
    a commit and the fill of its vectors leaves them pending (BM25 answers): they are filled then, as
    `gaji index fill` would, and the index checked again."""
    from gaji.index.fill import fill_vectors

    try:
        state, problems, pending = _state(path, before, after)
    except IndexUnusableError as e:
        ok = before is None and ("interrupted" in str(e) or "no index" in str(e))
        return ("before", []) if ok else ("", [f"the index does not open: {e}"])
    if pending and not problems:
        fill_vectors(path)
        state2, problems, _ = _state(path, before, after)
        if state2 != state:
            problems.append(f"filling the pending vectors moved the index from the state {state} to {state2}")
        state += "+fill"
    return state, problems


# -- the indexes the harness keeps writing to ----------------------------------------------------
class _Kind:
    """One index under test: its folder, the folder it syncs, and what it holds now (its fingerprint)."""

    def __init__(self, name: str, work: Path, corpus: _Corpus):
        self.name = name
        self.path = work / name
        self.src = work / f"{name}-src"
        self.corpus = corpus
        self.state: tuple | None = None

    def reset(self) -> None:
        """A new index: 30 documents, plus the 6 files of its sync folder."""
        from gaji.index.writer import sync_source

        shutil.rmtree(self.path, ignore_errors=True)
        shutil.rmtree(self.src, ignore_errors=True)
        self.src.mkdir(parents=True)
        for _ in range(6):
            self.add_file()
        corpus = _jsonl(self.path.parent / f"{self.name}-base.jsonl", self.corpus.docs(30))
        do_write({"op": "build", "index": str(self.path), "corpus": str(corpus), "kind": self.name})
        sync_source(self.path, self.src)
        self.state = fingerprint(self.path)

    def add_file(self) -> None:
        d = self.corpus.doc("f")
        (self.src / f"{d['id']}.txt").write_text(d["text"], encoding="utf-8")

    def doc_ids(self) -> list[str]:
        from gaji.index.store import open_index

        return sorted({c.doc_id for c in open_index(self.path).iter_chunks()})


def _spec(kind: _Kind, op: str, rng: random.Random, work: Path, n: int) -> dict[str, Any]:
    """The write of trial `n` (changing the sync folder first for a sync)."""
    spec: dict[str, Any] = {"op": op, "kind": kind.name, "index": str(kind.path)}
    if op in ("add", "upload"):
        docs = kind.corpus.docs(rng.randint(1, 4))
        ids = kind.doc_ids()
        if op == "add" and ids and rng.random() < 0.5:  # and a new text for a document already there
            docs.append({**kind.corpus.doc(), "id": rng.choice(ids)})
        spec["docs"] = docs
    elif op == "remove":
        ids = kind.doc_ids()
        spec["ids"] = rng.sample(ids, min(len(ids), rng.randint(1, 2)))
    elif op == "sync":
        files = sorted(kind.src.glob("*.txt"))
        if files:
            rng.choice(files).write_text(kind.corpus.doc()["text"], encoding="utf-8")  # edited
        if len(files) > 3:
            rng.choice(files).unlink()  # deleted
        for _ in range(rng.randint(0, 2)):
            kind.add_file()  # new
        spec["source"] = str(kind.src)
    else:  # build (over the index) or fresh (a new index)
        spec["corpus"] = str(_jsonl(work / f"corpus-{n}.jsonl", kind.corpus.docs(rng.randint(10, 30))))
        if op == "fresh":
            spec["index"] = str(work / f"fresh-{n}")
    return spec


class _Server:
    """`gaji serve` over the BM25 index, started when an upload needs it; killed by the upload trials."""

    def __init__(self, kind: _Kind):
        self.kind = kind
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def upload_and_kill(self, docs: list[dict[str, str]], delay_s: float) -> bool:
        import httpx

        from gaji_lab.bench.serve import free_port, start_server

        if self.proc is None or self.proc.poll() is not None:
            self.port = free_port()
            self.proc = start_server(["--index", f"crash={self.kind.path}", "--llm", "scripted",
                                      "--retriever", "bm25"], self.port)
        body = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")
        answered: list[int] = []

        def post() -> None:
            try:
                r = httpx.post(f"http://127.0.0.1:{self.port}/api/indexes/crash/documents", content=body,
                               headers={"content-type": "application/x-ndjson"}, timeout=60)
                answered.append(r.status_code)
            except httpx.HTTPError:
                pass

        t = threading.Thread(target=post)
        t.start()
        time.sleep(delay_s)
        killed = not answered
        if killed:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)
        t.join(60)
        if answered and answered[0] != 200:
            raise RuntimeError(f"the upload failed by itself: HTTP {answered[0]}")
        return killed

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _trial(kind: _Kind, op: str, n: int, rng: random.Random, work: Path, server: _Server,
           speed: dict[tuple[str, str], float]) -> Trial:
    """One write killed at a random point (`speed`: how much slower than the reference run each kind of
    write was in a child, learnt from those that finished before their kill), then the checks."""
    spec = _spec(kind, op, rng, work, n)
    ref = work / "reference"
    shutil.rmtree(ref, ignore_errors=True)
    if op != "fresh":
        shutil.copytree(kind.path, ref)
    t0 = time.perf_counter()
    do_write({**spec, "index": str(ref)})  # the same write, left alone: the state after
    ref_s = time.perf_counter() - t0
    after = fingerprint(ref)
    delay = rng.uniform(0.0, 1.1 * ref_s * speed.get((kind.name, op), 1.5))
    if op == "upload":
        killed = server.upload_and_kill(spec["docs"], delay)
    else:
        took = _kill_child(spec, delay)
        killed = took is None
        if took is not None:  # finished before its kill: aim the next kills of this write within its time
            speed[(kind.name, op)] = max(1.0, took / max(ref_s, 1e-3))
    target = Path(spec["index"])
    before = None if op == "fresh" else kind.state
    left = leftovers(target, op)
    state, problems = check(target, before, after)
    t = Trial(n, kind.name, op, round(delay, 4), killed, state, left, problems)
    if op == "fresh":
        if state == "before" and not problems:  # the interrupted build, run again, resumes and completes
            do_write(spec)
            again, more = check(target, None, after)
            t.problems += more + ([] if again == "after" else ["the build run again did not complete"])
        shutil.rmtree(target, ignore_errors=True)
        shutil.rmtree(target.parent / f".{target.name}.building", ignore_errors=True)
    elif t.problems or not state:
        server.stop()
        kind.reset()  # a broken index: start again from a new one, so later trials still test something
    else:
        kind.state = before if state == "before" else after  # ("after+fill": the state after, filled)
    Path(spec.get("corpus", work / "none")).unlink(missing_ok=True)
    return t


def _choose(rng: random.Random, vector_share: float, upload_share: float, fresh_share: float) -> tuple[str, str]:
    r = rng.random()
    if r < upload_share:
        return "bm25", "upload"
    kind = "bm25" if rng.random() >= vector_share else rng.choice(["hybrid", "hnsw"])
    if r < upload_share + fresh_share:
        return kind, "fresh"
    return kind, rng.choice(["add", "add", "remove", "sync", "build"])


def run_crash(work: str | Path, kills: int = 200, seed: int = 0, vector_share: float = 0.25,
              upload_share: float = 0.1, fresh_share: float = 0.08, max_trials: int | None = None,
              progress: Callable[[Trial, int], None] | None = None) -> dict[str, Any]:
    """Kill writers until `kills` of them died at work (or `max_trials` writes were tried); check the index
    after each. The result: counts by write and index kind, states reached, every problem found."""
    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rng = random.Random(seed)
    corpus = _Corpus(rng)
    kinds = {name: _Kind(name, work, corpus) for name in KINDS}
    needed = {"bm25"} | ({"hybrid", "hnsw"} if vector_share > 0 else set())
    for name in sorted(needed):
        kinds[name].reset()
    server = _Server(kinds["bm25"])
    trials: list[Trial] = []
    speed: dict[tuple[str, str], float] = {}
    t0 = time.perf_counter()
    try:
        while sum(t.killed for t in trials) < kills and (max_trials is None or len(trials) < max_trials):
            kind, op = _choose(rng, vector_share, upload_share, fresh_share)
            trials.append(_trial(kinds[kind], op, len(trials) + 1, rng, work, server, speed))
            if progress:
                progress(trials[-1], sum(t.killed for t in trials))
    finally:
        server.stop()
    return _summary(trials, time.perf_counter() - t0, seed, vector_share, upload_share, fresh_share)


def _summary(trials: list[Trial], seconds: float, seed: int, vector_share: float, upload_share: float,
             fresh_share: float) -> dict[str, Any]:
    killed = [t for t in trials if t.killed]
    return {
        "kills": len(killed),
        "survived": sum(1 for t in killed if not t.problems),
        "writes": len(trials),
        "completed_writes_checked": len(trials) - len(killed),
        "failed_checks": sum(1 for t in trials if t.problems),
        "kills_by_op": dict(Counter(t.op for t in killed)),
        "kills_by_index": dict(Counter(t.kind for t in killed)),
        "states_after_kill": dict(Counter(t.state or "neither" for t in killed)),
        "left_by_kill": dict(Counter(t.left for t in killed)),
        "problems": [asdict(t) for t in trials if t.problems][:50],
        "seconds": round(seconds, 1),
        "seed": seed, "vector_share": vector_share, "upload_share": upload_share, "fresh_share": fresh_share,
        "date": time.strftime("%Y-%m-%d", time.gmtime()), "machine": f"{os.cpu_count()} cores",
    }


def markdown(res: dict[str, Any]) -> str:
    lines = [f"# gaji bench crash ({res['date']}, seed {res['seed']})", "",
             f"**{res['survived']} of {res['kills']} kills survived** (kill -9 of a writer at work, then: the "
             "index opens, its parts agree, it holds the state before or after the write and answers the fixed "
             f"query as that state does). {res['writes']} writes in {res['seconds']:.0f} s; "
             f"{res['completed_writes_checked']} finished before their kill and were checked too.", "",
             "| write | kills |", "|---|---:|"]
    lines += [f"| {op} | {n} |" for op, n in sorted(res["kills_by_op"].items())]
    lines += ["", "| index | kills |", "|---|---:|"]
    lines += [f"| {k} | {n} |" for k, n in sorted(res["kills_by_index"].items())]
    lines += ["", "State after the kill: " + ", ".join(f"{k} {v}" for k, v in sorted(res["states_after_kill"].items())),
              "", "What the killed writer left (where the kill landed): "
              + ", ".join(f"{k} {v}" for k, v in sorted(res["left_by_kill"].items()))]
    if res["problems"]:
        lines += ["", "## Problems", ""]
        lines += [f"- write {p['n']} ({p['op']} on {p['kind']}, kill after {p['delay_s']} s): "
                  + "; ".join(p["problems"]) for p in res["problems"]]
    return "\n".join(lines) + "\n"
