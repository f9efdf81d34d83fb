# Run from the repository root: python benchmarks/auto/cascade/runs/replay-namesakes/replay.py (one model job; ~10 min on 2 cores)
"""Replay recorded item reads with namesake pages removed; decide both ways; compare with gold."""
import json, glob, lzma, os, re, sys
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, '.')
from gaji.methods import compare, check
from gaji.methods.compare import without_namesakes, Lookup, parse_comparison, parse_life
from gaji.methods.check import parse_check
from gaji.methods.toq.order import parse_date, parse_number
from gaji.types import Passage
from gaji.eval.metrics.answer import f1_en, f1_ko
from gaji.llm.base import Request

qs = {}
for p in glob.glob('benchmarks/**/traces.jsonl.xz', recursive=True):
    rp = os.path.join(os.path.dirname(p), 'results.jsonl')
    if not os.path.exists(rp): continue
    res = {json.loads(l)['id']: json.loads(l) for l in open(rp)}
    for l in lzma.open(p, 'rt'):
        t = json.loads(l); tr = t['trace']; store = tr.get('passages', {})
        r = res.get(t['id'])
        if not r: continue
        items = [n for n in (tr.get('root') or {}).get('children', []) if n.get('kind') == 'compare_item'
                 and not n.get('data', {}).get('resolve') and n.get('data', {}).get('compare_item')
                 and n.get('data', {}).get('check') != 'same_judge' and not n.get('data', {}).get('choose')]
        if len(items) != 2 or tr['question'] in qs: continue
        reads = []
        for nd in items:
            ps = [Passage(id=i, doc_id=i, text='', title=store[i].get('title', '')) for i in nd.get('passage_ids', []) if i in store]
            kept = without_namesakes(ps, nd['data']['compare_item'])
            dropped = [x.title for x in ps if x not in kept]
            call = (nd.get('calls') or [None])[-1]
            reads.append(dict(item=nd['data']['compare_item'], q=nd['question'], old=nd.get('answer') or '', dropped=dropped,
                              messages=call['prompt'] if call else None, all_dropped=len(kept) == 0))
        if any(rd['dropped'] for rd in reads):
            qs[tr['question']] = dict(lang=tr['lang'], gold=r['gold'], reads=reads)
print(len(qs), 'questions with a changed read', file=sys.stderr)

def strip_docs(messages, dropped):
    sysmsg = messages[0]['content']
    head, _, rest = sysmsg.partition('<documents>\n')
    body, _, tail = rest.partition('</documents>')
    blocks = [b for b in re.split(r'\n\n(?=\[\d+\] )', body.strip()) if b.strip()]
    keep = [b for b in blocks if not any(re.match(r'\[\d+\] \(' + re.escape(t) + r'\) ', b) for t in dropped)]
    keep = [re.sub(r'^\[\d+\] ', f'[{k + 1}] ', b) for k, b in enumerate(keep)]
    new = head + '<documents>\n' + '\n\n'.join(keep) + '\n' + '</documents>' + tail
    return [dict(messages[0], content=new)] + messages[1:]

from gaji.llm.local import make_local
llm = make_local("", parallel=2, threads=2)
jobs = [(q, i) for q, d in qs.items() for i, rd in enumerate(d['reads']) if rd['dropped'] and rd['messages']]
print(len(jobs), 'reads to replay', file=sys.stderr)
def run(job):
    q, i = job
    rd = qs[q]['reads'][i]
    msgs = strip_docs(rd['messages'], rd['dropped'])
    r = llm.generate(Request(messages=msgs, max_tokens=40 if 'two dates' in msgs[0]['content'] else 24))
    return job, r.text.strip()
with ThreadPoolExecutor(2) as ex:
    for (q, i), text in ex.map(run, jobs):
        qs[q]['reads'][i]['new'] = text
        print('.', end='', file=sys.stderr, flush=True)
for d in qs.values():
    for rd in d['reads']:
        rd.pop('messages', None); rd.setdefault('new', rd['old'])
json.dump(qs, open('benchmarks/auto/cascade/runs/replay-namesakes/reads.json', 'w'), ensure_ascii=False, indent=0)
