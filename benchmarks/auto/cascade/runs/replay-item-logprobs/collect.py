# Run from the repository root: collect.py, then replay.py (one model job, ~12 min on 2 cores; reads.jsonl is kept xz-compressed), then analyse.py TAUS [v]
import json, lzma, glob, os
out = {}
for d in sorted(glob.glob('benchmarks/**/traces.jsonl.xz', recursive=True)):
    run = d.split('/')[-2]
    rp = os.path.join(os.path.dirname(d), 'results.jsonl')
    if not os.path.exists(rp): continue
    res = {json.loads(l)['id']: json.loads(l) for l in open(rp)}
    for line in lzma.open(d, 'rt'):
        t = json.loads(line); tr = t['trace']; r = res.get(t['id'])
        if not r or tr['lang'] != 'en': continue
        def walk(n):
            if n.get('kind') == 'compare_item' and n.get('data', {}).get('check') in ('both', 'which'):
                yield n
            for ch in n.get('children', []): yield from walk(ch)
        for n in walk(tr.get('root') or {}):
            if not n.get('calls'): continue
            c = n['calls'][-1]
            if not c.get('prompt'): continue
            key = (t['id'], n['question'])
            out[key] = dict(qid=t['id'], run=run, q=tr['question'], item=n['data'].get('compare_item'), check=n['data']['check'],
                            sub=n['question'], gold=r['gold'], answer_rec=n.get('answer'), messages=c['prompt'])
print(len(out), 'item reads;', len({k[0] for k in out}), 'questions')
json.dump(list(out.values()), open('benchmarks/auto/cascade/runs/replay-item-logprobs/prompts.json', 'w'), ensure_ascii=False)
