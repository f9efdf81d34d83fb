"""Replay (embedded model, one call per case): for auto answers whose re-ask repeated the same wrong shape, ask a third, firmer turn in the same
conversation and score the result against gold (local model)."""
import json, lzma, glob, os, sys
OUT = "benchmarks/auto/cascade/runs/replay-echo-twice/turn.jsonl"
from gaji.llm.factory import make_llm
from gaji.llm.base import Request
from gaji.methods import reask
from gaji.methods.common import plain_answer
from gaji.methods.span import shape_answer
from gaji.eval.metrics.answer import answer_scores
from gaji.types import Passage

TURN = {
 "ko": {"echo": "'{a}'은(는) 답이 아닙니다. 질문이 묻는 것은 질문에 나오지 않은 다른 말입니다. 문서에서 그 말을 찾아 답만 쓰세요.",
        "restated": "또 질문을 되풀이했습니다. 질문이 묻는 것 하나만, 문서에 나온 낱말 그대로 짧게 쓰세요."},
 "en": {"echo": "'{a}' is not the answer: the question asks for something it does not name itself. Find it in the documents and give only that answer.",
        "restated": "You repeated the question again. Give only what it asks for, in the documents' own words, as briefly as you can."},
}
exec(open('benchmarks/auto/cascade/runs/replay-echo-twice/cases.py').read())
print(len(cases), 'cases', file=sys.stderr)
if '--list' in sys.argv:
    for k, c in cases.items(): print(k, c['run'], c['kind'], c['span'], c['gold'], c['pred'], c['f1'], c['calls'])
    sys.exit()
llm = make_llm('local')
out = open(OUT, 'a')
done = {json.loads(l)['id'] for l in open(OUT)} if os.path.exists(OUT) else set()
for k, c in cases.items():
    if k in done: continue
    turn = TURN[c['lang']][c['kind']].format(a=c['span'].strip().strip(reask._STRIP))
    res = llm.generate(Request(messages=c['msgs'] + [{"role": "user", "content": turn}], max_tokens=64))
    third = shape_answer(plain_answer(res.text), c['q'], c['ps'], c['lang']).answer
    s = answer_scores(third, c['gold'], c['lang'])
    rec = dict(id=k, run=c['run'], kind=c['kind'], q=c['q'], gold=c['gold'], span=c['span'], reply=res.text, third=third,
               f1_third=s.f1 if s else None, still=reask.wrong_shape(third, c['q'], c['lang']), pred=c['pred'],
               f1_run=c['f1'], calls_run=c['calls'], tokens_run=c['tokens'], prompt_tokens=res.prompt_tokens)
    print(json.dumps(rec, ensure_ascii=False), file=out, flush=True)
    print(k, c['kind'], repr(c['span']), '->', repr(third), 'f1', rec['f1_third'], 'run', c['f1'], c['calls'])
