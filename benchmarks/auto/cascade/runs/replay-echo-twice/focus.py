"""Replay (embedded model, two calls per case): for auto answers whose re-ask repeated the same wrong shape, a fresh plain prompt holding only the
passages' sentences ranked by the question's keys without the echoed word's; variant B adds that the echo is not
the answer."""
import json, lzma, glob, os, sys
from gaji.llm.factory import make_llm
from gaji.llm.base import Request
from gaji.methods import reask
from gaji.methods.common import plain_answer, format_passages
from gaji.methods.span import shape_answer
from gaji.methods.prompts import direct, common as common_prompts
from gaji.eval.metrics.answer import answer_scores
from gaji.text.select import keys, ranked_sentences
from gaji.text.sentences import split_sentences
from gaji.types import Passage
exec(open('benchmarks/auto/cascade/runs/replay-echo-twice/cases.py').read())
NOTX = {"ko": "\n('{a}'은(는) 답이 아닙니다.)", "en": "\n('{a}' is not the answer.)"}
llm = make_llm('local')
outp = 'benchmarks/auto/cascade/runs/replay-echo-twice/focus.jsonl'
done = {json.loads(l)['id'] for l in open(outp)} if os.path.exists(outp) else set()
out = open(outp, 'a')
for k, c in cases.items():
    if k in done: continue
    q, lang, a = c['q'], c['lang'], c['span'].strip().strip(reask._STRIP)
    query = keys(q) - keys(a) if c['kind'] == 'echo' else keys(q)
    sents = [(p, s) for p in c['ps'] for s in split_sentences(p.text)]
    order = ranked_sentences([s for _, s in sents], query)[:3]
    order.sort()
    focus = [Passage(id=f"f{i}", doc_id=sents[i][0].doc_id, text=sents[i][1], title=sents[i][0].title) for i in order]
    fenced = format_passages(focus)
    rec = dict(id=k, run=c['run'], kind=c['kind'], q=q, gold=c['gold'], span=c['span'], f1_run=c['f1'], calls_run=c['calls'],
               gold_in_focus=any(g in f.text for g in c['gold'] for f in focus))
    for var in ('A', 'B'):
        question = q + (NOTX[lang].format(a=a) if var == 'B' and c['kind'] == 'echo' else '')
        msgs = direct.PROMPTS[lang].plain.messages(data_note=common_prompts.PROMPTS[lang].data_note, passages=fenced, question=question)
        res = llm.generate(Request(messages=msgs, max_tokens=64))
        ans = shape_answer(plain_answer(res.text), q, focus, lang).answer
        s = answer_scores(ans, c['gold'], lang)
        rec[var] = dict(reply=res.text, answer=ans, f1=s.f1 if s else None, still=reask.wrong_shape(ans, q, lang), prompt_tokens=res.prompt_tokens)
    print(json.dumps(rec, ensure_ascii=False), file=out, flush=True)
    print(k, c['kind'], repr(a), 'focus-gold', rec['gold_in_focus'], '| A', repr(rec['A']['answer']), rec['A']['f1'], '| B', repr(rec['B']['answer']), rec['B']['f1'], '| run', c['f1'], c['calls'], rec['A']['prompt_tokens'])
