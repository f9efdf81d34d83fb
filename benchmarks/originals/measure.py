"""Measure what keeping originals costs: a 50-file sample folder, built twice (BM25 only) with and without
originals; then keep_originals alone on the build's records (time to copy and hash), and a second run (all shared)."""
import json, shutil, sys, time
from pathlib import Path

from gaji.corpus.docgen import write_sample_folder
from gaji.index.build import build_index
from gaji.index.originals import keep_originals
from gaji.index.sources import read_records

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
folder = root / "문서"
files = write_sample_folder(folder, 50)
src_bytes = sum(p.stat().st_size for p in files)
out = {}
for keep in (True, False):
    dst = root / f"idx-{keep}"
    t = time.perf_counter()
    idx = build_index([str(folder)], dst, dense=False, progress=False, korean_analyzer="bigram", originals=keep)
    secs = time.perf_counter() - t
    info = idx.info()
    out[f"originals={keep}"] = {"build_s": round(secs, 2), "size_bytes": info["size_bytes"],
                                "originals": info["originals"], "stats": idx.manifest.stats.get("originals")}
recs = read_records(root / "idx-True")
fresh = root / "keep-only"
t = time.perf_counter(); k1 = keep_originals(fresh, recs); t1 = time.perf_counter() - t
t = time.perf_counter(); k2 = keep_originals(fresh, recs); t2 = time.perf_counter() - t
out["keep_originals"] = {"files": len(files), "source_bytes": src_bytes, "first_s": round(t1, 3), "first": k1.to_dict(),
                         "again_s": round(t2, 4), "again": k2.to_dict()}
print(json.dumps(out, ensure_ascii=False, indent=1))
