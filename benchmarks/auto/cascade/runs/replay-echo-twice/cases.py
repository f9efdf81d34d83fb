"""The recorded auto answers whose re-ask came back with the same wrong shape (the question's own name again, or
the question said back again): each with its conversation so far, its passages and how the run ended. Read from
every auto run under benchmarks/auto/cascade/runs (run from the repository's root); one case per question id."""
import json, lzma, glob, os, sys
from gaji.methods import reask
from gaji.methods.common import plain_answer
from gaji.methods.span import shape_answer
from gaji.types import Passage
cases = {}
for d in sorted(glob.glob('benchmarks/auto/cascade/runs/*/')):
    tf = d + 'traces.jsonl.xz'
    if not os.path.exists(tf) or not os.path.exists(d + 'results.jsonl'):
        continue
    res = {json.loads(l)['id']: json.loads(l) for l in open(d + 'results.jsonl')}
    for l in lzma.open(tf, 'rt'):
        t = json.loads(l); r = res.get(t['id'])
        if not r or t['id'] in cases or t['trace'].get('method') != 'auto':
            continue
        root = t['trace']['root']; ra = root['data'].get('reask')
        if not ra or ra.get('kind') not in ('echo', 'restated'):
            continue
        calls = [c for c in root['calls'] if c['purpose'] in ('answer', 'reask')]
        if len(calls) < 2:
            continue
        q = r['question']; lang = r['lang']
        ps = [Passage(**{k: v for k, v in t['trace']['passages'][i].items() if k in Passage.__dataclass_fields__ and k != 'location'})
              for i in root['passage_ids'] if i in t['trace']['passages']]
        second = shape_answer(plain_answer(ra['reply']), q, ps, lang).answer
        kind = reask.wrong_shape(second, q, lang) or ("restated" if reask.restates(plain_answer(ra['reply']), q) else "")
        if kind not in ('echo', 'restated'):
            continue
        cases[t['id']] = dict(run=os.path.basename(d[:-1]), q=q, lang=lang, gold=r['gold'], kind=kind, span=second,
                             msgs=calls[1]['prompt'] + [{"role": "assistant", "content": calls[1]['output']}],
                             ps=ps, pred=r['prediction'], f1=r['metrics']['f1'], calls=r['metrics']['calls'],
                             tokens=r['metrics']['tokens'])
