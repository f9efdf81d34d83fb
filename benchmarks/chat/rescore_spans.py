"""Re-shape recorded raw replies (no model call) with this checkout's span code and score F1/EM against gold."""
import json, lzma, glob, sys
from gaji.methods.common import plain_answer
from gaji.methods.span import shape_answer
from gaji.eval.metrics.answer import f1_ko, em_ko, f1_en, em_en
import gaji
runs = sys.argv[1:]
for run in runs:
    gold = {}
    for f in glob.glob(run + "/results.jsonl*"):
        op = lzma.open if f.endswith(".xz") else open
        for line in op(f, "rt"):
            try: d = json.loads(line)
            except Exception: continue
            gold[str(d["id"])] = d.get("gold") or []
    n = f1 = em = 0.0
    for f in glob.glob(run + "/traces.jsonl*"):
        op = lzma.open if f.endswith(".xz") else open
        for line in op(f, "rt"):
            try: d = json.loads(line)
            except Exception: continue
            t = d["trace"]; raw = t["root"]["data"].get("raw_output")
            g = gold.get(str(d["id"]))
            if not isinstance(raw, str) or not g: continue
            passages = list((t.get("passages") or {}).values())
            from gaji.types import Passage
            ps = [Passage.from_dict(p) if hasattr(Passage, "from_dict") else Passage(**p) for p in passages] if isinstance(passages, list) else []
            a = shape_answer(plain_answer(raw), t["question"], ps, t.get("lang") or "en").answer
            ko = t.get("lang") == "ko"
            f1 += max((f1_ko if ko else f1_en)(a, x) for x in g); em += max((em_ko if ko else em_en)(a, x) for x in g); n += 1
    print(f"{run.split('results/')[1]}: n={int(n)} F1={100*f1/max(n,1):.1f} EM={100*em/max(n,1):.1f}")
