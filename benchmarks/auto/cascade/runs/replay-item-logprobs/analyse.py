import json, collections, sys, re, glob, os
rows = [json.loads(l) for l in open('benchmarks/auto/cascade/runs/replay-item-logprobs/reads.jsonl')]
pred = {}
for rp in glob.glob('benchmarks/**/results.jsonl', recursive=True):
    run = rp.split('/')[-2]
    for l in open(rp):
        d = json.loads(l); pred[(run, d['id'])] = (d['prediction'], d['metrics']['f1'])
byq = collections.defaultdict(list)
for r in rows: byq[(r['qid'], r['check'])].append(r)
def norm(s): return re.sub(r'[^\w]', '', s.lower())
def py(r):
    s = r['p_yes'] + r['p_no'] + r['p_unk']
    return r['p_yes'] / s if s else 0
qs = []
for (qid, kind), rs in byq.items():
    if len(rs) != 2: continue
    split = 'dev' if 'dev' in rs[0]['run'] else 'rep'
    qs.append((kind, split, rs[0]['gold'][0], rs, pred[(rs[0]['run'], qid)]))
if len(sys.argv) > 2:
    for kind, split, g, rs, (p, f1) in sorted(qs, key=lambda x: (x[0], x[1])):
        print(kind, split, 'gold', g[:20].ljust(20), 'pred', p[:15].ljust(15), round(f1,2), ' | '.join(f"{r['item'][:20]}: {r['out'][:7]} {py(r):.2f}" for r in rs))
for tau in [float(x) for x in sys.argv[1].split(',')]:
    for kind in ('both','which'):
        for split in ('dev','rep'):
            cur = new = n = 0
            for k, sp, g, rs, (p, f1) in qs:
                if sp != split or k != kind: continue
                n += 1; cur += f1
                if kind == 'both':
                    nv = min(py(r) for r in rs) >= tau
                    new += nv == (norm(g) == 'yes')
                else:
                    best = max(rs, key=py)['item']
                    new += norm(best) in norm(g) or norm(g) in norm(best)
            print(f'tau {tau} {kind} {split}: n={n} recorded F1 sum {cur:.1f} new {new}')
