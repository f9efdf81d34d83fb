"""`gaji bench bigdoc`: does one huge document index at the speed per character of many small ones?

    res = run_bigdoc(chars=300_000, langs=("ko", "en"))     # gaji bench bigdoc --chars 300000

For each language the same text is indexed twice, end to end with vectors, by `build_index` from a JSONL
file, as `gaji index build` does: (a) as ONE document of `chars` characters, (b) cut at sentence bounds
into documents of at most `piece_chars` characters (~2 KB). The text is shared benchmark data: KorQuAD
paragraphs (Korean), HotpotQA corpus passages (English), joined by blank lines. Each stage's wall time
comes from the index manifest's stats (read, chunk, BM25 analysis, BM25 indexing, embedding, writing the
vectors); a stage's rate is characters per second of the variant's own text, and the ratio is one
document's rate over many documents'. A ratio near 1 means no stage is superlinear in document length.

The analyser and the embedder are loaded before the clock starts; the variants of a language run
interleaved (`rounds` times, the fastest build of each kept). The process CPU time of each build is
recorded too (fairer than wall time on a shared machine). Embedder windows (the model inputs of at most
512 tokens a chunk is cut into) are counted for the ONNX engine, which must grow linearly with the text.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import time
from pathlib import Path
from typing import Any

__all__ = ["run_bigdoc", "markdown", "source_text", "split_pieces", "STAGES", "SOURCES"]

# language -> shared dataset whose passages make the text
SOURCES = {"ko": "korquad", "en": "hotpotqa"}
# (label, manifest stats keys summed)
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("read", ("read_s",)),
    ("chunk", ("chunk_s",)),
    ("BM25 analyse", ("analyze_s",)),
    ("BM25 index", ("lexical_index_s",)),
    ("embed", ("embed_s",)),
    ("write vectors", ("dense_write_s",)),
)


def source_text(lang: str, chars: int, data: str | Path | None = None) -> str:
    """`chars` characters of the language's shared passages, joined by blank lines."""
    from gaji.corpus.readers import read_documents
    from gaji.corpus.shared_data import dataset_paths
    from gaji.errors import ConfigError

    if lang not in SOURCES:
        raise ConfigError(f"bench bigdoc: unknown language {lang!r}; use {', '.join(SOURCES)}")
    _, corpus = dataset_paths(SOURCES[lang], data)
    docs, _ = read_documents([corpus], skip_bad=True)
    parts, n = [], 0
    for d in docs:
        if n >= chars:
            break
        parts.append(d.text.strip())
        n += len(parts[-1]) + 2
    text = "\n\n".join(parts)
    if len(text) < chars:
        raise ConfigError(f"bench bigdoc: {corpus} holds only {len(text):,} characters of text; ask for fewer")
    return text[:chars].rstrip()


def split_pieces(text: str, piece_chars: int) -> list[str]:
    """`text` cut at sentence bounds into pieces of at most `piece_chars` characters (a longer sentence alone)."""
    from gaji.text.sentences import sentence_spans

    pieces: list[str] = []
    start = end = None
    for s, e in sentence_spans(text):
        if start is not None and e - start > piece_chars:
            pieces.append(text[start:end])
            start = None
        if start is None:
            start = s
        end = e
    if start is not None:
        pieces.append(text[start:end])
    return pieces


def _write_jsonl(path: Path, lang: str, variant: str, texts: list[str]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": f"{lang}-{variant}-{i}", "title": "", "text": t}, ensure_ascii=False) + "\n")


def _windows(embedder: Any, texts: list[str]) -> int | None:
    count = getattr(embedder, "window_count", None)
    return int(count(texts)) if callable(count) else None


def _build(src: Path, out: Path, embedder: Any, dense: bool, chunk_size: int | None) -> dict[str, Any]:
    from gaji.corpus.chunking import ChunkingConfig
    from gaji.index.build import build_index
    from gaji.index.fillplan import texts_of

    shutil.rmtree(out, ignore_errors=True)
    c0, t0 = time.process_time(), time.perf_counter()
    idx = build_index([src], out, progress=False, dense=dense, embedder=embedder if dense else None,
                      chunking=ChunkingConfig(size=chunk_size), embed_workers=1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    stats = idx.manifest.stats
    texts = texts_of(idx.manifest)
    chunks = list(idx.iter_chunks())
    res = {
        "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "stages_s": {label: round(sum(float(stats.get(k, 0.0)) for k in keys), 4) for label, keys in STAGES},
        "searchable_s": stats.get("searchable_s"),
        "chunks": len(chunks),
        "max_chunk_chars": max((len(c.text) for c in chunks), default=0),
        "embedded_chars": sum(len(texts.dense(c)) for c in chunks) if dense else 0,
        "windows": _windows(embedder, [texts.dense(c) for c in chunks]) if dense else None,
    }
    return res


def _rates(chars: int, r: dict[str, Any]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for label, _ in STAGES:
        s = r["stages_s"][label]
        out[label] = round(chars / s, 1) if s > 0 else None
    out["total (wall)"] = round(chars / r["wall_s"], 1) if r["wall_s"] > 0 else None
    out["total (CPU)"] = round(chars / r["cpu_s"], 1) if r["cpu_s"] > 0 else None
    return out


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return min(runs, key=lambda r: r["wall_s"])


def run_bigdoc(chars: int = 300_000, langs: tuple[str, ...] = ("ko", "en"), piece_chars: int = 2000,
               work: str | Path = ".gaji/bench/bigdoc", dense: bool = True, chunk_size: int | None = None,
               rounds: int = 1, data: str | Path | None = None, embedder: Any = None) -> dict[str, Any]:
    """Index one document of `chars` characters and the same text as ~`piece_chars`-character documents, per
    language; the rates per stage and their ratio (see the module docstring)."""
    from gaji.index.dense import get_embedder
    from gaji.text.analyzers import default_analyzer

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    analyzer = default_analyzer()
    analyzer.warmup()
    emb = (embedder or get_embedder()) if dense else None
    if emb is not None:
        emb.embed_passages(["warm up"])
    res: dict[str, Any] = {
        "benchmark": "bigdoc", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                    "load_before": [round(x, 2) for x in os.getloadavg()]},
        "settings": {"chars": chars, "piece_chars": piece_chars, "dense": dense, "chunk_size": chunk_size,
                     "rounds": rounds, "embedder": emb.model_id if emb is not None else None,
                     "analyzer": analyzer.name},
        "langs": {},
    }
    for lang in langs:
        text = source_text(lang, chars, data)
        pieces = split_pieces(text, piece_chars)
        variants = {"one": [text], "many": pieces}
        srcs = {}
        for v, texts in variants.items():
            srcs[v] = work / f"{lang}-{v}.jsonl"
            _write_jsonl(srcs[v], lang, v, texts)
        runs: dict[str, list[dict[str, Any]]] = {"one": [], "many": []}
        for _ in range(max(1, rounds)):
            for v in ("many", "one"):
                runs[v].append(_build(srcs[v], work / f"{lang}-{v}", emb, dense, chunk_size))
        entry: dict[str, Any] = {"source": SOURCES[lang]}
        for v, texts in variants.items():
            n = sum(len(t) for t in texts)
            best = _best(runs[v])
            entry[v] = {"documents": len(texts), "chars": n, **best, "chars_per_s": _rates(n, best)}
        one, many = entry["one"]["chars_per_s"], entry["many"]["chars_per_s"]
        entry["ratio"] = {k: (round(one[k] / many[k], 3) if one[k] and many[k] else None) for k in one}
        res["langs"][lang] = entry
    res["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return res


def _n(x: Any, nd: int = 0) -> str:
    if x is None:
        return "–"
    return f"{x:,.{nd}f}" if isinstance(x, float) else f"{x:,}"


def markdown(res: dict[str, Any]) -> str:
    s = res["settings"]
    lines = [
        f"### One huge document vs many small ones: `gaji bench bigdoc --chars {s['chars']}`",
        "",
        f"{res['date']}, {res['machine']['cpu_count']} cores, load {res['machine']['load_before']} → "
        f"{res['machine']['load_after']}; embedder `{s['embedder']}`, chunk size "
        f"{s['chunk_size'] or 'default'}, pieces ≤ {s['piece_chars']} characters, best of {s['rounds']}.",
        "",
    ]
    for lang, e in res["langs"].items():
        one, many = e["one"], e["many"]
        lines += [
            f"**{lang}** ({e['source']}): one document of {one['chars']:,} characters vs {many['documents']:,} "
            f"documents ({many['chars']:,} characters)",
            "",
            "| stage | one: s | one: chars/s | many: s | many: chars/s | ratio one/many |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for label, _ in STAGES:
            lines.append(f"| {label} | {_n(one['stages_s'][label], 3)} | {_n(one['chars_per_s'][label])} | "
                         f"{_n(many['stages_s'][label], 3)} | {_n(many['chars_per_s'][label])} | "
                         f"{_n(e['ratio'][label], 2)} |")
        for label, key in (("total (wall)", "wall_s"), ("total (CPU)", "cpu_s")):
            lines.append(f"| {label} | {_n(one[key], 2)} | {_n(one['chars_per_s'][label])} | {_n(many[key], 2)} | "
                         f"{_n(many['chars_per_s'][label])} | {_n(e['ratio'][label], 2)} |")
        lines += [
            "",
            f"chunks {one['chunks']:,} vs {many['chunks']:,} (longest {one['max_chunk_chars']:,} vs "
            f"{many['max_chunk_chars']:,} characters); embedder windows {_n(one['windows'])} vs "
            f"{_n(many['windows'])}; BM25-searchable after {_n(one['searchable_s'], 2)} s vs "
            f"{_n(many['searchable_s'], 2)} s.",
            "",
        ]
    return "\n".join(lines)
