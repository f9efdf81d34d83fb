"""A mutational fuzz of the document readers, and the bomb corpus run through the worker.

    seeds = make_seeds(folder)                         # one small valid file per format
    data = mutate(seeds["docx"].read_bytes(), "docx", random.Random(1))
    res = run_fuzz(folder, seconds=60)                 # counts by outcome; failures with their messages

A mutation flips, deletes, inserts or duplicates bytes, truncates, or, for zip formats, rewrites one member (its
XML mutated the same way, or replaced by a deep or entity-laden one) and zips the package again, so the
mutations reach the XML parsers and not only the zip reader. A read must give Documents or an `Unreadable`
with a reason; anything else (another exception, a worker crash) is a failure. `run_bombs` reads each case of
gaji.corpus.bombs in a fresh worker and records the refusal, the time to it and the worker's peak RSS.

Used by tests/corpus/test_readers_fuzz.py (briefly) and `gaji bench fuzz-readers` (lab/gaji_lab/cli/bench_readers.py).
"""
from __future__ import annotations

import random
import time
import traceback
import zipfile
from pathlib import Path
from typing import Any

from gaji.corpus.bombs import DAMAGED, deflated, minimal_pdf, write_zip

__all__ = ["make_seeds", "mutate", "run_fuzz", "run_bombs", "markdown", "ZIP_KINDS"]

ZIP_KINDS = ("docx", "pptx", "xlsx", "hwpx")


def make_seeds(folder: Path) -> dict[str, Path]:
    """One small valid file per format: DOCX, PPTX, XLSX, HWPX, HTML, PDF, HWP (when the fixture is here), TXT."""
    from gaji.corpus.bombs import hwp_fixture
    from gaji.corpus.docgen import write_docx, write_hwpx, write_pptx, write_xlsx

    folder.mkdir(parents=True, exist_ok=True)
    items = [("h1", "1. 개요"), ("p", "이 문서는 예산 집행 현황을 정리한다."), ("table", [["부서", "예산"], ["연구소", "48억 원"]])]
    seeds = {
        "docx": write_docx(folder / "seed.docx", "보고서", items),
        "pptx": write_pptx(folder / "seed.pptx", [("분기 실적", ["매출은 12% 늘었다."], [["부서", "인원"], ["연구소", "58명"]])]),
        "xlsx": write_xlsx(folder / "seed.xlsx", {"예산": [["부서", "예산"], ["연구소", 48], ["모바일", 12]]}),
        "hwpx": write_hwpx(folder / "seed.hwpx", "보고서", items),
    }
    html = folder / "seed.html"
    html.write_text("<!doctype html><html><head><title>안내</title></head><body><nav>메뉴</nav><main><h1>개요</h1>"
                    "<p>사내 규정을 <b>안내</b>합니다.</p><table><tr><th>항목</th><th>값</th></tr><tr><td>휴가</td>"
                    "<td>15일</td></tr></table></main></body></html>", encoding="utf-8")
    seeds["html"] = html
    pdf = folder / "seed.pdf"
    pdf.write_bytes(minimal_pdf(["Budget report page one", "Second page on staffing"]))
    seeds["pdf"] = pdf
    hwp = hwp_fixture()
    if hwp is not None:
        seeds["hwp"] = folder / "seed.hwp"
        seeds["hwp"].write_bytes(hwp.read_bytes())
    txt = folder / "seed.md"
    txt.write_text("# 제목\n\n본문 문장입니다.\n", encoding="utf-8")
    seeds["md"] = txt
    return seeds


def _bytes_mutation(data: bytes, rnd: random.Random) -> bytes:
    if not data:
        return bytes([rnd.randrange(256)])
    b = bytearray(data)
    op = rnd.randrange(6)
    i = rnd.randrange(len(b))
    if op == 0:  # flip a few bytes
        for _ in range(rnd.randint(1, 8)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
    elif op == 1:  # delete a run
        del b[i: i + rnd.randint(1, 64)]
    elif op == 2:  # insert random or markup bytes
        b[i:i] = rnd.choice([bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 32))), b"<", b">", b"&", b"\x00",
                             b"<x>" * 50, b"]]>", b"\xed\xa0\x80", b"<!--"])
    elif op == 3:  # duplicate a region
        j = min(len(b), i + rnd.randint(1, 256))
        b[j:j] = b[i:j] * rnd.randint(1, 20)
    elif op == 4:  # truncate
        del b[i:]
    else:  # interesting integers at a random place
        b[i: i + 4] = rnd.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x7f\xff\xff\xff", b"\x00\x00\x00\x80"])
    return bytes(b)


def _zip_mutation(data: bytes, rnd: random.Random) -> bytes:
    """Mutate one member of the package (its XML, or swapped for a hostile one) and zip it again."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            members = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    except Exception:  # noqa: BLE001 - not a zip any more: mutate the bytes
        return _bytes_mutation(data, rnd)
    k = rnd.randrange(len(members))
    name, content = members[k]
    op = rnd.randrange(4)
    if op == 0:
        content = b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'
    elif op == 1:
        content = b"<a>" * 2000 + b"</a>" * 2000
    else:
        for _ in range(rnd.randint(1, 3)):
            content = _bytes_mutation(content, rnd)
    members[k] = (name, content)
    if rnd.random() < 0.2 and len(members) > 1:
        del members[rnd.randrange(len(members))]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = write_zip(Path(tmp) / "m.zip", [(n, deflated(c)) for n, c in members])
        return out.read_bytes()


def mutate(data: bytes, kind: str, rnd: random.Random) -> bytes:
    """`data` (a file of format `kind`) with one to three mutations, structure-aware for zip formats."""
    for _ in range(rnd.randint(1, 3)):
        data = _zip_mutation(data, rnd) if kind in ZIP_KINDS and rnd.random() < 0.7 else _bytes_mutation(data, rnd)
    return data


def read_outcome(path: Path, reader: Any) -> tuple[str, str]:
    """("read", "") | ("refused", reason) | ("failure", traceback) for one file."""
    from gaji.corpus.formats import Unreadable

    try:
        out = reader(path, path.name)
        if out.fmt not in (None, "text") and not out.docs:
            return "failure", "a reader returned no documents and no refusal"
        return "read", ""
    except Unreadable as e:
        return "refused", str(e)
    except Exception:  # noqa: BLE001 - this is what the fuzz looks for
        return "failure", traceback.format_exc(limit=6)


def run_fuzz(folder: Path, *, seconds: float = 60.0, max_files: int | None = None, seed: int = 0,
             isolate: bool = True, progress: Any = None) -> dict[str, Any]:
    """Mutate the seeds and read each mutant until `seconds` pass (or `max_files`); counts per format and outcome."""
    from gaji.corpus.formats.limits import ReadLimits
    from gaji.corpus.formats.worker import IsolatedReader, read_in_process

    seeds = make_seeds(folder / "seeds")
    originals = {k: p.read_bytes() for k, p in seeds.items()}
    rnd = random.Random(seed)
    limits = ReadLimits()
    counts: dict[str, dict[str, int]] = {k: {"read": 0, "refused": 0, "failure": 0} for k in seeds}
    failures: list[dict[str, str]] = []
    work = folder / "mutants"
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    n = 0
    reader_cm = IsolatedReader(limits) if isolate else None
    reader = reader_cm.read if reader_cm is not None else (lambda p, r: read_in_process(p, r, limits))
    try:
        while time.monotonic() - t0 < seconds and (max_files is None or n < max_files):
            kind = rnd.choice(sorted(seeds))
            path = work / f"m{n}{seeds[kind].suffix}"
            path.write_bytes(mutate(originals[kind], kind, rnd))
            outcome, detail = read_outcome(path, reader)
            counts[kind][outcome] += 1
            if outcome == "failure":
                keep = folder / "failures" / path.name
                keep.parent.mkdir(exist_ok=True)
                path.replace(keep)
                failures.append({"file": str(keep), "format": kind, "detail": detail})
            else:
                path.unlink()
            n += 1
            if progress is not None and n % 100 == 0:
                progress(n, time.monotonic() - t0, len(failures))
    finally:
        if reader_cm is not None:
            reader_cm.close()
    return {"files": n, "seconds": round(time.monotonic() - t0, 1), "seed": seed, "isolated": isolate,
            "by_format": counts, "failures": failures}


def run_bombs(folder: Path, *, names: list[str] | None = None, size_mb: int | None = None,
              progress: Any = None) -> list[dict[str, Any]]:
    """Each bomb case built and read in a fresh worker: its outcome, the time to it and the worker's peak RSS."""
    from gaji.corpus.bombs import cases
    from gaji.corpus.formats import LimitExceeded, ReadLimits, Unreadable
    from gaji.corpus.formats.worker import IsolatedReader

    rows = []
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases(names):
        try:
            path = case.build(folder, size_mb if case.scalable else None)
        except FileNotFoundError as e:
            rows.append({"case": case.name, "skipped": str(e)})
            continue
        limits = ReadLimits.from_options(case.limits)
        with IsolatedReader(limits) as reader:
            reader.start()  # the time to refusal counts from the file, not from the interpreter's start
            t0 = time.monotonic()
            try:
                reader.read(path, path.name)
                got, reason = "read", ""
            except LimitExceeded as e:
                got, reason = e.refusal.key, str(e)
            except Unreadable as e:
                got, reason = DAMAGED, str(e)
            took = time.monotonic() - t0
            rss_kb = reader.last_peak_rss_kb
        row = {"case": case.name, "file_bytes": path.stat().st_size, "outcome": got, "expected": list(case.expect),
               "ok": got in case.expect, "seconds": round(took, 2), "worker_peak_rss_mb": round(rss_kb / 1024, 1),
               "reason": reason}
        rows.append(row)
        path.unlink()
        if progress is not None:
            progress(row)
    return rows


def markdown(bombs: list[dict[str, Any]], fuzz: dict[str, Any] | None) -> str:
    lines = ["| case | file | outcome | expected | s | worker peak RSS MB |", "|---|---:|---|---|---:|---:|"]
    for r in bombs:
        if "skipped" in r:
            lines.append(f"| {r['case']} | | skipped: {r['skipped']} | | | |")
            continue
        lines.append(f"| {r['case']} | {r['file_bytes']:,} | {r['outcome']}{'' if r['ok'] else ' (WRONG)'} | "
                     f"{', '.join(r['expected'])} | {r['seconds']} | {r['worker_peak_rss_mb'] or '-'} |")
    if fuzz is not None:
        lines += ["", f"Fuzz: {fuzz['files']} mutated files in {fuzz['seconds']} s (seed {fuzz['seed']}, "
                  f"{'worker process' if fuzz['isolated'] else 'in process'}), {len(fuzz['failures'])} failures.", "",
                  "| format | read | refused | failure |", "|---|---:|---:|---:|"]
        for k, c in sorted(fuzz["by_format"].items()):
            lines.append(f"| {k} | {c['read']} | {c['refused']} | {c['failure']} |")
    return "\n".join(lines) + "\n"
