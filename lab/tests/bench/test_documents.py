"""`gaji bench documents` on a few generated files: every format is timed and the folder indexes."""
from gaji_lab.bench.documents import run


def test_documents_bench_small(tmp_path):
    res = run(files=6, repeat=1, work=tmp_path / "w", out=tmp_path / "out", command="test")
    assert {"docx", "pptx", "xlsx", "hwpx", "html"} <= set(res["parse"])
    for name, s in res["parse"].items():
        assert s["files"] >= 1 and s["documents"] >= 1 and s["seconds"] > 0, name
    b = res["build"]["bm25"]
    assert b["documents"] == sum(s["documents"] for s in res["parse"].values()) and b["chunks"] >= b["documents"]
    assert (tmp_path / "out" / "documents.md").read_text(encoding="utf-8").startswith("Parse speed per format")
