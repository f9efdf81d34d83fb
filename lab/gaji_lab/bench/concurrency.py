"""`gaji bench concurrency`: several writer processes, reader processes and a live server on one index for a
bounded time; nothing acknowledged is lost.

    res = run_concurrency("runs/conc", seconds=600, writers=3, readers=2)
    print(markdown(res))

Each writer process adds documents (`gaji.index.writer`, as `gaji index add` does), uploads documents to
the server (POST /api/indexes/{name}/documents), removes documents it added before, and syncs a folder of
its own whose files it edits, deletes and adds; every write acknowledged (the call returned, HTTP 200) is
written to its ledger. Every document carries a word no other document has. Reader processes open the
index again and again and check that the generation they opened is consistent (gaji.index.verify) and
answers a search; reader threads ask the server questions. At the end every document the ledgers say is
there must be in the index and be the first BM25 hit for its word, every document they say was removed
must be gone, the parts must agree, and the server must answer over the newest generation.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from gaji.io import append_jsonl

WORDS = ("penguin ocean ice river mountain battle king language music forest city rain 김치 배추 바다 강 산 전투 왕 "
         "언어 음악 숲 도시 비 눈 바람 역사 과학").split()


def _doc(rng: random.Random, ident: str) -> dict[str, str]:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 30))]
    return {"id": ident, "title": ident, "text": f"{_word(ident)} " + " ".join(words) + "."}


def _word(ident: str) -> str:
    """The word only this document has: consonants only, so that no analyser changes it (an index built
    routing by language leaves a Korean chunk's Latin words unstemmed while an English query's are stemmed)."""
    return "uniq" + "".join("bcdfghjkmn"[int(c)] if c.isdigit() else "p" for c in ident) + "z"


# -- the writer process -------------------------------------------------------------------------
class _Writer:
    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.w = spec["writer"]
        self.rng = random.Random(spec["seed"])
        self.index = spec["index"]
        self.ledger = Path(spec["ledger"])
        self.src = Path(spec["src"])
        self.n = 0
        self.mine: list[str] = []  # documents this writer added and has not removed (acknowledged)
        self.files: list[str] = []  # its sync folder's documents

    def new_ids(self, k: int) -> list[str]:
        out = []
        for _ in range(k):
            self.n += 1
            out.append(f"w{self.w}-{self.n}")
        return out

    def ack(self, op: str, added: list[str], removed: list[str]) -> None:
        append_jsonl(self.ledger, {"op": op, "added": added, "removed": removed, "t": time.time()})
        self.mine = [i for i in self.mine + added if i not in set(removed)]

    def add(self) -> None:
        from gaji.index.writer import add_documents
        from gaji.types import Document

        docs = [_doc(self.rng, i) for i in self.new_ids(self.rng.randint(1, 3))]
        add_documents(self.index, [Document(**d) for d in docs])
        self.ack("add", [d["id"] for d in docs], [])

    def upload(self) -> None:
        import httpx

        docs = [_doc(self.rng, i) for i in self.new_ids(self.rng.randint(1, 3))]
        body = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")
        r = httpx.post(f"{self.spec['url']}/api/indexes/conc/documents", content=body, timeout=600,
                       headers={"content-type": "application/x-ndjson"})
        if r.status_code != 200:
            raise RuntimeError(f"upload: HTTP {r.status_code} {r.text[:200]}")
        self.ack("upload", [d["id"] for d in docs], [])

    def remove(self) -> None:
        from gaji.index.writer import remove_documents

        pool = [i for i in self.mine if i not in self.files]
        if not pool:
            return self.add()
        gone = self.rng.sample(pool, min(len(pool), self.rng.randint(1, 2)))
        remove_documents(self.index, gone)
        self.ack("remove", [], gone)

    def sync(self) -> None:
        from gaji.index.writer import sync_source

        if self.files and self.rng.random() < 0.4:
            gone = self.rng.choice(self.files)
            (self.src / gone).unlink()
        for ident in self.new_ids(self.rng.randint(0, 2)):
            (self.src / f"{ident}.txt").write_text(_doc(self.rng, ident)["text"], encoding="utf-8")
        res = sync_source(self.index, self.src)
        self.files = sorted(p.name for p in self.src.glob("*.txt"))
        self.ack("sync", res.added, res.removed)

    def run(self) -> None:
        deadline = self.spec["deadline"]
        ops = {"add": self.add, "upload": self.upload, "remove": self.remove, "sync": self.sync}
        # every kind of write first, each writer starting at another one, so that a short run on a slow
        # machine still exercises all four; then at random
        kinds = ["add", "upload", "sync", "remove"]
        start = int(self.spec.get("writer", 0)) % len(kinds)
        first = kinds[start:] + kinds[:start]
        while time.time() < deadline:
            op = first.pop(0) if first else self.rng.choice(["add", "add", "upload", "remove", "sync"])
            try:
                ops[op]()
            except Exception as e:  # noqa: BLE001 - recorded: a refused write is not acknowledged
                append_jsonl(self.ledger, {"op": op, "error": f"{type(e).__name__}: {e}"[:300], "t": time.time()})
            time.sleep(self.rng.uniform(0, self.spec["pause_s"]))


def writer_main(spec: dict[str, Any]) -> None:
    Path(spec["src"]).mkdir(parents=True, exist_ok=True)
    _Writer(spec).run()


# -- the reader process -------------------------------------------------------------------------
def reader_main(spec: dict[str, Any]) -> None:
    """Open the index again and again until the deadline; check each generation opened; write the counts."""
    from gaji.index.store import open_index
    from gaji.index.verify import verify

    checks, problems, generations = 0, [], set()
    while time.time() < spec["deadline"]:
        try:
            idx = open_index(spec["index"])
            generations.add(idx.generation)
            found = verify(idx)
            idx.retriever("bm25").search("penguin 바다", 5)
            checks += 1
            if found:
                problems.append(f"generation {idx.generation}: {'; '.join(found)}")
            del idx
        except Exception as e:  # noqa: BLE001 - a reader that cannot open or search is a problem
            problems.append(f"{type(e).__name__}: {e}"[:300])
    Path(spec["out"]).write_text(json.dumps({"checks": checks, "problems": problems[:20],
                                             "generations": len(generations)}), encoding="utf-8")


CHILD = """
import json, sys
import gaji_lab.bench.concurrency as c
getattr(c, sys.argv[1])(json.loads(sys.argv[2]))
"""


def _spawn(fn: str, spec: dict[str, Any]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "GAJI_INDEX_WAIT_S": "600"}
    return subprocess.Popen([sys.executable, "-c", CHILD, fn, json.dumps(spec)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _http_readers(url: str, deadline: float, n: int) -> tuple[list[threading.Thread], Counter]:
    import httpx

    seen: Counter = Counter()

    def loop() -> None:
        with httpx.Client(timeout=120) as client:
            while time.time() < deadline:
                try:
                    r = client.post(f"{url}/api/ask", json={"question": "penguin 바다 전투", "index": "conc",
                                                             "method": "oner", "options": {"k": 3}})
                    seen[r.status_code] += 1
                except httpx.HTTPError as e:
                    seen[type(e).__name__] += 1
                time.sleep(0.05)

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    return threads, seen


# -- the run ----------------------------------------------------------------------------------------
def _ledgers(work: Path, writers: int) -> tuple[dict[str, Counter], set[str], set[str]]:
    """Writes by writer and op (acknowledged / refused), and the documents that must be there / gone."""
    ops: dict[str, Counter] = {}
    present: set[str] = set()
    removed: set[str] = set()
    for w in range(writers):
        c: Counter = Counter()
        path = work / f"ledger-{w}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        for line in lines:
            rec = json.loads(line)
            if "error" in rec:
                c[f"{rec['op']} refused"] += 1
                continue
            c[rec["op"]] += 1
            present |= set(rec["added"])
            present -= set(rec["removed"])
            removed |= set(rec["removed"])
            removed -= set(rec["added"])
        ops[f"writer {w}"] = c
    return ops, present, removed


def _final_check(index: Path, present: set[str], removed: set[str], url: str) -> dict[str, Any]:
    import httpx

    from gaji.index.store import open_index
    from gaji.index.verify import verify

    idx = open_index(index)
    bm25 = idx.retriever("bm25")
    docs = {c.doc_id for c in idx.iter_chunks()}
    lost = sorted(i for i in present if i not in docs)
    unsearchable = sorted(i for i in present if i in docs
                          and [p.doc_id for p in bm25.search(_word(i.removesuffix(".txt")), 1)] != [i])
    status = httpx.get(f"{url}/api/indexes/conc", timeout=60).json()
    return {"documents": len(docs), "chunks": idx.chunks, "generation": idx.generation,
            "acknowledged_present": len(present), "lost": lost[:20], "lost_count": len(lost),
            "unsearchable": unsearchable[:20], "removed_but_present": sorted(removed & docs)[:20],
            "problems": verify(idx), "server_chunks": status.get("chunks")}


def run_concurrency(work: str | Path, seconds: float = 30.0, writers: int = 3, readers: int = 2,
                    http_readers: int = 2, seed: int = 0, pause_s: float = 0.3) -> dict[str, Any]:
    """Writers, readers and a server on one BM25 index for `seconds`; then check that nothing is lost."""
    from gaji_lab.bench.serve import free_port, start_server, stop_server
    from gaji.index.build import build_index

    work = Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rng = random.Random(seed)
    base = work / "base.jsonl"
    base.write_text("".join(json.dumps(_doc(rng, f"b-{i}"), ensure_ascii=False) + "\n" for i in range(40)),
                    encoding="utf-8")
    index = work / "idx"
    build_index([str(base)], index, dense=False, progress=False, korean_analyzer="bigram")
    port = free_port()
    server = start_server(["--index", f"conc={index}", "--llm", "scripted", "--retriever", "bm25"], port)
    url = f"http://127.0.0.1:{port}"
    t0 = time.time()
    deadline = t0 + seconds
    try:
        procs = [_spawn("writer_main", {"writer": w, "seed": seed * 100 + w, "index": str(index), "url": url,
                                        "ledger": str(work / f"ledger-{w}.jsonl"), "src": str(work / f"src-{w}"),
                                        "deadline": deadline, "pause_s": pause_s}) for w in range(writers)]
        procs += [_spawn("reader_main", {"index": str(index), "deadline": deadline,
                                         "out": str(work / f"reader-{r}.json")}) for r in range(readers)]
        threads, asked = _http_readers(url, deadline, http_readers)
        errors = [p.stderr.read()[-500:] for p in procs if p.wait() != 0]
        for t in threads:
            t.join(180)
        elapsed = time.time() - t0
        ops, present, removed = _ledgers(work, writers)
        final = _final_check(index, present, removed, url)
    finally:
        stop_server(server)
    reads = [json.loads((work / f"reader-{r}.json").read_text()) for r in range(readers)
             if (work / f"reader-{r}.json").exists()]
    return {"seconds": round(elapsed, 1), "writers": writers, "readers": readers, "http_readers": http_readers,
            "writes": {k: dict(v) for k, v in ops.items()}, "reader_checks": sum(r["checks"] for r in reads),
            "reader_generations": max((r["generations"] for r in reads), default=0),
            "reader_problems": [p for r in reads for p in r["problems"]][:20], "asked": dict(asked),
            "process_errors": errors, "final": final, "seed": seed,
            "date": time.strftime("%Y-%m-%d", time.gmtime()), "machine": f"{os.cpu_count()} cores"}


def passed(res: dict[str, Any]) -> bool:
    f = res["final"]
    return (not f["lost_count"] and not f["unsearchable"] and not f["removed_but_present"] and not f["problems"]
            and not res["reader_problems"] and not res["process_errors"] and f["server_chunks"] == f["chunks"]
            and set(res["asked"]) <= {200})


def markdown(res: dict[str, Any]) -> str:
    f = res["final"]
    total: Counter = Counter()
    for c in res["writes"].values():
        total.update(c)
    acked = sum(v for k, v in total.items() if not k.endswith("refused"))
    lines = [f"# gaji bench concurrency ({res['date']}, {res['seconds']:.0f} s, seed {res['seed']})", "",
             f"**{'nothing lost' if passed(res) else 'FAILED'}**: {res['writers']} writer processes, "
             f"{res['readers']} reader processes, {res['http_readers']} clients asking a live server, one index.",
             "", f"- writes acknowledged: {acked} ("
             + ", ".join(f"{k} {v}" for k, v in sorted(total.items()) if not k.endswith("refused")) + ")",
             "- writes refused: " + (", ".join(f"{k} {v}" for k, v in sorted(total.items()) if k.endswith("refused"))
                                     or "none"),
             f"- reader processes: {res['reader_checks']} generations opened and verified "
             f"({res['reader_generations']} distinct in one reader), problems: {len(res['reader_problems'])}",
             "- questions to the server: " + ", ".join(f"HTTP {k}: {v}" for k, v in sorted(res["asked"].items(), key=str)),
             f"- at the end: {f['documents']} documents, {f['chunks']} chunks, generation {f['generation']}; "
             f"{f['acknowledged_present']} acknowledged documents checked: lost {f['lost_count']}, "
             f"not first for their word {len(f['unsearchable'])}, removed but present "
             f"{len(f['removed_but_present'])}; index problems {len(f['problems'])}; the server reports "
             f"{f['server_chunks']} chunks"]
    if res["process_errors"] or res["reader_problems"] or f["problems"]:
        lines += ["", "## Problems", ""] + [f"- {p}" for p in res["process_errors"] + res["reader_problems"]
                                            + f["problems"]]
    return "\n".join(lines) + "\n"
