# Run from the repository root after replay.py: python benchmarks/auto/cascade/runs/replay-namesakes/decide.py
import json, sys
sys.path.insert(0, '.')
from gaji.methods import compare, check
from gaji.methods.compare import Lookup, parse_comparison, parse_life
from gaji.methods.check import parse_check
from gaji.methods.toq.order import parse_date, parse_number
from gaji.eval.metrics.answer import f1_en, f1_ko
qs = json.load(open('benchmarks/auto/cascade/runs/replay-namesakes/reads.json'))
def value(c, kind, reply):
    if not reply or compare._unknown(reply): return None
    if kind == 'lifespan':
        l = parse_life(reply); return l[0] if l else None
    if kind == 'date': return parse_date(reply)
    if kind == 'number': return parse_number(reply)
    return check._value(c, reply)
tot = {'old': 0.0, 'new': 0.0}; rows = []
for q, d in qs.items():
    lang = d['lang']; f = f1_ko if lang == 'ko' else f1_en
    c = parse_comparison(q, lang); k = None
    if c is None:
        k = parse_check(q, lang)
        if k is None: continue
    res = {}
    for which in ('old', 'new'):
        lks = []
        for rd in d['reads']:
            rep = rd[which]
            lk = Lookup(rd['item'], rd['q'], rep, None, passage_ids=['x'])
            lk.value = value(k or c, (c.kind if c else None), rep) if c else value(k, None, rep)
            lks.append(lk)
        v = (check.decide(k, lks) if k else compare.decide(c, lks))
        res[which] = v.answer
    sc = {w: (max(f(res[w], g) for g in d['gold']) if res[w] else None) for w in res}
    if res['old'] != res['new']:
        rows.append((q, res['old'], res['new'], sc['old'], sc['new'], d['gold'][0]))
for r in rows: print(f"{r[3]} -> {r[4]} | {r[0][:70]} | {r[1]} -> {r[2]} | gold {r[5][:20]}")
def cnt(w):
    right = sum(1 for r in rows if r[3 if w == 'old' else 4] and r[3 if w == 'old' else 4] >= 0.5)
    wrong = sum(1 for r in rows if r[3 if w == 'old' else 4] is not None and r[3 if w == 'old' else 4] < 0.5)
    none = sum(1 for r in rows if r[3 if w == 'old' else 4] is None)
    return right, wrong, none
print('changed verdicts', len(rows), 'old right/wrong/none', cnt('old'), 'new', cnt('new'))
