import json, math, sys, os
from concurrent.futures import ThreadPoolExecutor
from gaji.llm.local import make_local
from gaji.llm.base import Request
items = json.load(open('benchmarks/auto/cascade/runs/replay-item-logprobs/prompts.json'))
outp = 'benchmarks/auto/cascade/runs/replay-item-logprobs/reads.jsonl'
done = set()
if os.path.exists(outp):
    done = {json.loads(l)['sub'] + json.loads(l)['qid'] for l in open(outp)}
llm = make_local("", parallel=2, threads=2)
def one(it):
    if it['sub'] + it['qid'] in done: return None
    r = llm.generate(Request(messages=it['messages'], max_tokens=4, logprobs=10))
    lp = r.logprobs[0] if r.logprobs else {}
    tops = [(t['token'], t['logprob']) for t in lp.get('top', [])]
    def p(words):
        return sum(math.exp(v) for k, v in tops if k.strip().lower() in words)
    rec = dict(it); rec.pop('messages')
    rec.update(first=lp.get('token'), first_lp=lp.get('logprob'), out=r.text, p_yes=p({'yes'}), p_no=p({'no'}), p_unk=p({'unknown', 'unk', 'un'}), tops=tops)
    return rec
with ThreadPoolExecutor(2) as ex, open(outp, 'a') as f:
    for rec in ex.map(one, items):
        if rec:
            f.write(json.dumps(rec, ensure_ascii=False) + '\n'); f.flush()
            print(rec['check'], rec['item'], rec['out'], round(rec['p_yes'],3), round(rec['p_no'],3), round(rec['p_unk'],3), flush=True)
