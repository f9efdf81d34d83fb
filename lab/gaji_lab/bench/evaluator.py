"""`gaji bench evaluator`: does the ToQ query evaluator (Prompt B.4) tell answers from non-answers?

ToQ stops expanding a node when the evaluator calls its response valid, so an evaluator that
rubber-stamps (or rejects) everything turns the tree into OneR (or into a budget burner). This
bench measures it on labelled responses built from a question set's gold data, without any
generation, on questions outside the ones methods are reported on (`--offset`, default 50: the
bench configs report on the first 50):

  gold     "According to the documents, the answer is <gold answer> [1]."          valid
  bridge   the same sentence with the bridge entity (a supporting article's title
           that the question does not mention): a step on the way, not the answer  invalid
  other    the same sentence with another question's gold answer of another shape
           (a year for a who-question, yes/no for a what-question, ...)              invalid

The evaluator sees only the question and the response (as inside the ToQ tree). Reported: the
validity rate per kind, balanced accuracy ((valid on gold + invalid on the rest) / 2), and the mean
scores, so a prompt change can be judged on many questions instead of one trace.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from gaji_lab.bench.probing import ProbeReport, map_calls
from gaji.errors import ConfigError, GajiError

TEMPLATE = {
    "en": "According to the documents, the answer is {answer} [1].",
    "ko": "문서에 따르면 답은 {answer}입니다 [1].",
}
KINDS = ("gold", "bridge", "other")


@dataclass
class Probe:
    qid: str
    kind: str  # gold | bridge | other
    question: str
    response: str
    label: bool  # should be valid
    lang: str = "en"


def _shape(answer: str) -> str:
    a = answer.strip().lower()
    if a in ("yes", "no", "예", "아니오", "아니요"):
        return "yesno"
    if re.search(r"\d", a):
        return "number"
    return "name"


def _strip_title(title: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def build_probes(items: list[Any]) -> list[Probe]:
    """Labelled responses for each question (see the module docstring); deterministic."""
    probes: list[Probe] = []
    for i, it in enumerate(items):
        if not it.answers:
            continue
        lang = it.lang or "en"
        tpl = TEMPLATE.get(lang, TEMPLATE["en"])
        gold = it.answers[0]
        probes.append(Probe(it.id, "gold", it.question, tpl.format(answer=gold), True, lang))
        q = it.question.lower()
        for ref in it.gold:
            t = _strip_title(ref.title)
            if t and t.lower() not in q and t.lower() not in gold.lower() and gold.lower() not in t.lower():
                if _shape(gold) != "yesno":  # a yes/no question has no bridge entity
                    probes.append(Probe(it.id, "bridge", it.question, tpl.format(answer=t), False, lang))
                break
        others = [o.answers[0] for o in items if o.answers and _shape(o.answers[0]) != _shape(gold)]
        if others:
            probes.append(Probe(it.id, "other", it.question, tpl.format(answer=others[i % len(others)]), False, lang))
    return probes


@dataclass
class Verdict:
    probe: Probe
    valid: bool | None  # None: the evaluator failed
    coherence: float = 0.0
    answerability: float = 0.0
    error: str | None = None
    reason: dict | None = None  # the evaluator's asks_for / response_gives


def score(verdicts: list[Verdict]) -> dict[str, Any]:
    out: dict[str, Any] = {"kinds": {}}
    for kind in KINDS:
        vs = [v for v in verdicts if v.probe.kind == kind and v.valid is not None]
        if not vs:
            continue
        out["kinds"][kind] = {
            "n": len(vs),
            "valid_pct": round(100.0 * sum(v.valid for v in vs) / len(vs), 1),
            "coherence": round(sum(v.coherence for v in vs) / len(vs), 2),
            "answerability": round(sum(v.answerability for v in vs) / len(vs), 1),
        }
    ok = [v for v in verdicts if v.valid is not None]
    pos = [v for v in ok if v.probe.label]
    neg = [v for v in ok if not v.probe.label]
    if pos and neg:
        tpr = sum(v.valid for v in pos) / len(pos)
        tnr = sum(not v.valid for v in neg) / len(neg)
        out["balanced_accuracy_pct"] = round(100.0 * (tpr + tnr) / 2, 1)
    out["failed"] = sum(1 for v in verdicts if v.valid is None)
    return out


def run_probes(probes: list[Probe], evaluator: Any, concurrency: int = 2) -> list[Verdict]:
    from gaji.types import Node

    def one(p: Probe) -> Verdict:
        node = Node(kind="toq_eval", question=p.question)
        try:
            r = evaluator.evaluate(node, p.question, p.response, p.lang)
        except GajiError as e:
            return Verdict(p, None, error=str(e))
        return Verdict(p, bool(r["response_validity"]), float(r["semantic_coherence"]), float(r["answerability"]),
                       reason=node.data.get("eval_reason"))

    return map_calls(one, probes, concurrency)


def render(result: dict, title: str) -> str:
    lines = [f"**{title}**", "", "| response | should be | n | judged valid % | coherence | answerability |",
             "|---|---|---:|---:|---:|---:|"]
    for kind in KINDS:
        k = result["kinds"].get(kind)
        if k:
            lines.append(f"| {kind} | {'valid' if kind == 'gold' else 'invalid'} | {k['n']} | {k['valid_pct']} | "
                         f"{k['coherence']} | {k['answerability']} |")
    lines += ["", f"Balanced accuracy: {result.get('balanced_accuracy_pct', '–')} % (50 = no better than always "
              f"one verdict). Failed calls: {result['failed']}."]
    return "\n".join(lines)


def run_bench(data: str, settings: Any, *, offset: int = 50, limit: int = 40,
              concurrency: int | None = None) -> ProbeReport:
    """Judge the labelled responses of questions offset+1 … offset+limit of `data` with the evaluator on the LLM
    the settings name (`concurrency` calls at once; default: the LLM's parallel slots)."""
    from gaji_lab.bench.probing import with_llm
    from gaji.eval.sets import load_dataset
    from gaji.methods.toq.evaluator import QueryEvaluator

    if offset < 0 or limit < 1:
        raise ConfigError("--offset must be >= 0 and --limit >= 1")
    ds = load_dataset(data)
    items = ds.items[offset: offset + limit]
    probes = build_probes(items)
    if not probes:
        raise ConfigError(f"{data}: no questions with gold answers after --offset {offset}")
    verdicts, used = with_llm(settings, concurrency, lambda llm, n: run_probes(probes, QueryEvaluator(llm), n))
    result = score(verdicts)
    result.update(data=ds.name, offset=offset, limit=limit, **used, probes=len(probes))
    md = render(result, f"{ds.name} questions {offset + 1}–{offset + len(items)}, judge {used['model']}")
    return ProbeReport(md, {**result, "verdicts": [
        {**asdict(v.probe), "valid": v.valid, "coherence": v.coherence, "answerability": v.answerability,
         "error": v.error, "reason": v.reason} for v in verdicts]})
