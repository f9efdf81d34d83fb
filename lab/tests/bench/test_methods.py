"""`gaji bench sweep`: one eval run per option value, a table of the headline metrics."""
import json

import pytest

from gaji.api import Gaji
from gaji_lab.bench.methods import parse_param, sweep, table
from gaji.cli.main import main
from gaji.config import load_settings
from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.testing import ListRetriever

DOCS = [
    ("guam", "Battle of Guam", "The Battle of Guam was fought in 1944."),
    ("manila", "Battle of Manila", "The Battle of Manila was fought in 1945."),
]


def test_parse_param():
    assert parse_param("k=2, 4,6") == ("k", ["2", "4", "6"])
    assert parse_param("max-steps=3") == ("max_steps", ["3"])
    for bad in ("k", "k=", "=2"):
        with pytest.raises(ConfigError):
            parse_param(bad)


def test_sweep_runs_once_per_value(tmp_path):
    data = tmp_path / "qs.jsonl"
    rows = [{"id": "q1", "question": "Which battle was first, the Battle of Guam or the Battle of Manila?", "answers": ["Battle of Guam"],
             "supporting": [{"doc_id": "guam", "title": "Battle of Guam", "text": "x"}]},
            {"id": "q2", "question": "When was the Battle of Manila?", "answers": ["1945"],
             "supporting": [{"doc_id": "manila", "title": "Battle of Manila", "text": "x"}]}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    g = Gaji(llm=ScriptedLLM(default="So the answer is: Battle of Guam."),
             retriever=ListRetriever(DOCS), settings=load_settings({}, env={}))
    out = sweep(str(data), "cot", "k", ["1", "2"], {"m": "1"}, g.settings, out=str(tmp_path / "runs"),
                progress=False, gaji=g)
    assert [v for v, _ in out] == ["1", "2"]
    assert all(s["questions"] == 2 and s["errors"] == 0 for _, s in out)
    assert out[0][1]["metrics"]["em"]["mean"] == 0.5
    assert (tmp_path / "runs" / "k=1" / "results.jsonl").exists()
    run = json.loads((tmp_path / "runs" / "k=2" / "run.json").read_text())
    assert run["options"]["k"] == 2 and run["options"]["m"] == 1
    md = table("k", out)
    assert md.splitlines()[0].startswith("| k | EM | F1 |") and md.splitlines()[2].startswith("| 1 | 50.0 |")


def test_sweep_rejects_unknown_option_before_any_work(tmp_path):
    with pytest.raises(ConfigError):
        sweep("hotpotqa", "cot", "bogus", ["1"], {}, load_settings({}, env={}), out=str(tmp_path), progress=False,
              gaji=Gaji(llm=ScriptedLLM(default="x")))
    assert main(["bench", "sweep", "--data", "x", "--method", "cot", "--param", "k"]) == 2
