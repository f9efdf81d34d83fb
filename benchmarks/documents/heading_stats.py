# Used for benchmarks/documents/NOTES.md: PYTHONPATH=<code> python heading_stats.py FOLDER > out.jsonl
"""Sections, chunks and chunk sizes of every file in a folder, at --chunk-size 1500 (the size a long-document
index uses), with the code on PYTHONPATH; one JSON line per file."""
import json
import sys
from pathlib import Path
from gaji.corpus.formats import detect, read_file
from gaji.corpus.chunking import chunk_document, ChunkingConfig
cfg = ChunkingConfig(size=1500)
for f in sorted(Path(sys.argv[1]).iterdir()):
    fmt, _ = detect(f)
    docs, _ = read_file(f, f.name, fmt)
    L = [len(c.text) for d in docs for c in chunk_document(d, cfg)]
    heads = [d.location.section[-1] for d in docs if d.location.section]
    print(json.dumps({"file": f.name, "sections": len(docs), "chunks": len(L), "lens": L,
                      "colon_titles": sum(1 for h in heads if ":" in h)}, ensure_ascii=False), flush=True)
