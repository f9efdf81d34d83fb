"""`gaji bench documents`: how fast the document readers parse, per format, and how long a folder of
mixed files takes to index end to end.

    gaji bench documents                                  # ~50 generated Korean files (docgen), BM25 only
    gaji bench documents --files 50 --extra tests/corpus/formats/fixtures/*.hwp --dense
    gaji bench documents --folder ~/회사문서                # your own folder instead

Parse speed: every file is detected and read (`gaji.corpus.formats`) `--repeat` times after one
warm-up file per format (library imports are not timed); per format it reports files/s, units/s
(PDF pages, PPTX slides, XLSX sheets; the Documents made for the other formats) and MB/s. End to end:
`build_index` on the whole folder (reading, chunking, BM25, and with ``--dense`` E5 embeddings), as
`gaji index build FOLDER` runs it. Results: a markdown table on stdout, JSON + markdown under ``--out``.
"""
from __future__ import annotations

import os
import platform
import shutil
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["run", "parse_speed"]


def parse_speed(paths: list[Path], root: Path, repeat: int = 3) -> dict[str, dict[str, Any]]:
    """Per format: files, units, documents, characters, bytes and the best-of-`repeat` parse seconds."""
    from gaji.corpus.formats import Unreadable, detect, read_file
    from gaji.corpus.readers import ReadReport, read_text_file

    def one(p: Path) -> tuple[str, int, int, int] | None:
        fmt, _ = detect(p)
        if fmt is None:
            return None
        if fmt.name == "text":
            doc = read_text_file(p, root, skip_bad=True, report=ReadReport())
            return fmt.name, 1, int(doc is not None), len(doc.text) if doc else 0
        docs, parsed = read_file(p, p.relative_to(root).as_posix(), fmt)
        return fmt.name, parsed.units_total or len(docs), len(docs), sum(len(d.text) for d in docs)

    warmed: set[str] = set()
    for p in paths:  # imports and first-use costs out of the timing
        try:
            fmt, _ = detect(p)
        except Unreadable:
            continue
        if fmt is not None and fmt.name not in warmed:
            warmed.add(fmt.name)
            try:
                one(p)
            except Unreadable:
                pass
    stats: dict[str, dict[str, Any]] = defaultdict(lambda: {"files": 0, "units": 0, "documents": 0, "chars": 0,
                                                            "bytes": 0, "seconds": 0.0})
    for p in paths:
        best, got = None, None
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            try:
                got = one(p)
            except Unreadable:
                got = ("unreadable", 0, 0, 0)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        if got is None:
            continue
        name, units, ndocs, chars = got
        s = stats[name]
        s["files"] += 1
        s["units"] += units
        s["documents"] += ndocs
        s["chars"] += chars
        s["bytes"] += p.stat().st_size
        s["seconds"] += best or 0.0
    return dict(stats)


def _machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_1m_at_start": round(load[0], 2)}


def run(folder: str | Path | None = None, files: int = 50, extra: list[str] | None = None, repeat: int = 3,
        dense: bool = False, work: str | Path = ".gaji/bench/documents", out: str | Path = "benchmarks/documents",
        command: str | None = None) -> dict[str, Any]:
    from gaji.corpus.docgen import korean_font, write_sample_folder
    from gaji_lab.bench.results import save_result
    from gaji.corpus.readers import _walk_folder
    from gaji.index.build import build_index

    work = Path(work)
    machine = _machine()
    if folder is None:
        root = work / "corpus"
        shutil.rmtree(root, ignore_errors=True)
        write_sample_folder(root, files, pdf=korean_font() is not None, extra=extra or [])
    else:
        root = Path(folder)
    paths = _walk_folder(root)
    parse = parse_speed(paths, root, repeat)

    builds: dict[str, dict[str, Any]] = {}
    for name, with_dense in (("bm25", False), ("bm25+dense", True)):
        if with_dense and not dense:
            continue
        target = work / f"index-{name.replace('+', '-')}"
        shutil.rmtree(target, ignore_errors=True)
        t0 = time.perf_counter()
        idx = build_index([root], target, dense=with_dense, progress=False, skip_bad=True)
        secs = time.perf_counter() - t0
        m = idx.manifest
        builds[name] = {"seconds": secs, "documents": m.counts.get("documents"), "chunks": idx.chunks,
                        "read_s": m.stats.get("read_s"), "chunk_s": m.stats.get("chunk_s"),
                        "unreadable": idx.read_report.unreadable if idx.read_report else 0}
        idx.close()

    res = {"command": command, "date": time.strftime("%Y-%m-%d"), "machine": machine, "folder": str(root),
           "files": len(paths), "repeat": repeat, "parse": parse, "build": builds}
    md = _markdown(res)
    save_result(out, "documents", res, md)
    res["json_path"] = str(Path(out) / "documents.json")
    res["markdown"] = md
    return res


def _markdown(res: dict[str, Any]) -> str:
    unit_name = {"pdf": "pages", "pptx": "slides", "xlsx": "sheets"}
    lines = [
        f"Parse speed per format ({res['files']} files, best of {res['repeat']} passes; "
        f"{res['machine']['cpus']} CPUs, load {res['machine']['load_1m_at_start']} at start)",
        "",
        "| format | files | units | documents | MB | files/s | units/s | MB/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in sorted(res["parse"].items()):
        secs = s["seconds"] or float("nan")
        unit = unit_name.get(name, "docs")
        lines.append(
            f"| {name} | {s['files']} | {s['units']} {unit} | {s['documents']} | {s['bytes'] / 1e6:.2f} | "
            f"{s['files'] / secs:,.1f} | {s['units'] / secs:,.1f} | {s['bytes'] / 1e6 / secs:,.2f} |"
        )
    lines += ["", "| index build (whole folder) | documents | chunks | read s | total s |", "|---|---:|---:|---:|---:|"]
    for name, b in res["build"].items():
        lines.append(f"| {name} | {b['documents']} | {b['chunks']} | {b['read_s'] or 0:.2f} | {b['seconds']:.2f} |")
    return "\n".join(lines)
