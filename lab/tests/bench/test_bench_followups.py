"""`gaji bench followups` and `gaji bench ttft` with the scripted LLM: the pairs file, the judging rule,
one pair end to end, and the time-to-first-token measurement."""
from __future__ import annotations

import re

from gaji.api import Gaji
from gaji_lab.bench.followups import PAIRS, Pair, load_pairs, render, rewrite_is_right, run_pair, similarity, strict_ok, summarize
from gaji_lab.bench.ttft import measure
from gaji_lab.bench.ttft import summarize as ttft_summary
from gaji.config import Settings
from gaji.llm.base import Request
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM
from gaji.testing import ListRetriever


def test_the_pairs_file_has_twenty_of_each_language_and_fair_targets():
    pairs = load_pairs(PAIRS)
    assert sum(p.lang == "ko" for p in pairs) >= 20 and sum(p.lang == "en" for p in pairs) >= 20
    assert len({p.id for p in pairs}) == len(pairs)
    for p in pairs:
        # what the rewrite must add is not in the follow-up, and the hand-written rewrite passes the rule
        assert not rewrite_is_right(p.followup, p.must_contain), p.id
        assert rewrite_is_right(p.standalone, p.must_contain), p.id
        assert p.answers and p.turns and p.doc_ids
    assert {p.pattern for p in pairs} >= {"pronoun", "place", "ordinal", "subject", "ellipsis"}


def test_the_judging_rule():
    must = [["소토마요르"]]
    assert rewrite_is_right("소토마요르가 첫 세계 주니어 기록을 세운 날은?", must)  # a particle may follow
    assert not rewrite_is_right("그 사람이 첫 세계 주니어 기록을 세운 날은?", must)
    assert rewrite_is_right("When was  simone BOLELLI born?", [["Bolelli"], ["born", "birth"]])
    assert not rewrite_is_right("And Simone Bolelli?", [["born", "birth"]])
    # strict: the entity named, and close to the hand-written rewrite (not the first question copied)
    assert similarity("금강산은 보통 어떻게 나뉘어?", "금강산은 보통 어떻게 나뉘어?") == 1.0
    copied = {"rewrite": "금강산의 총면적은 얼마야?", "expected": "금강산은 보통 어떻게 나뉘어?", "rewrite_ok": True}
    assert not strict_ok(copied)
    assert strict_ok({**copied, "rewrite": "금강산은 어떻게 나뉘어?"})


def test_one_pair_with_and_without_the_rewrite():
    pair = Pair(id="en-x", lang="en", corpus="hotpotqa", pattern="pronoun",
                turns=[("Which battle occurred first, the Battle of Manila or the Battle of Guam?", "Battle of Guam")],
                followup="When did it end?", standalone="When did the Battle of Guam end?", must_contain=[["Guam"]],
                answers=["10 August 1944"], doc_ids=["guam"])

    def reply(req: Request) -> str:
        last = req.messages[-1]["content"]
        if "Last question:" in last:
            return "When did the Battle of Guam end?"
        q = re.search(r"Question: (.+)", last).group(1)
        return "10 August 1944" if "Guam" in q else "3 March 1945"

    llm = ScriptedLLM(default=reply)
    docs = [("guam", "Battle of Guam", "The Battle of Guam (21 July – 10 August 1944) ..."),
            ("manila", "Battle of Manila", "The Battle of Manila (3 February – 3 March 1945) ...")]
    g = Gaji(llm=llm, retriever=ListRetriever(docs), settings=Settings(retries=0, k=1))
    row = run_pair(pair, g, TrackedLLM(llm), "oner", oracle=True)
    assert row["rewrite"] == "When did the Battle of Guam end?" and row["rewrite_ok"] and row["rewrite_tokens"] > 0
    assert (row["without"]["em"], row["with"]["em"], row["oracle"]["em"]) == (0.0, 1.0, 1.0)
    summary = summarize([row], oracle=True)
    assert summary["all"]["rewrite_right"] == 1 and summary["en"]["with"]["em"] == 100.0
    md = render(summary, {"llm": "scripted", "method": "oner", "k": 1, "retriever": "list", "date": "today"}, True)
    assert "| all | 1 | 1/1 | 1/1 | 0.0 / " in md and "pronoun 1/1 (strict 1)" in md


def test_ttft_measures_the_first_piece_before_the_end():
    llm = ScriptedLLM(default="Battle of Guam came first")
    llm.stream_delay_s = 0.05
    g = Gaji(llm=llm, retriever=ListRetriever([("g", "Guam", "Battle of Guam")]), settings=Settings(retries=0))
    r = measure(g, "Which battle came first?", "oner")
    assert r["drafts"] == 1 and r["first_token_ms"] == r["final_token_ms"]
    assert r["first_token_ms"] + 150 <= r["total_ms"]  # four pieces, 50 ms apart: the first came well before the end
    assert ttft_summary([r])["oner"]["streamed"] == 1


def test_dev_and_report_parts_split_the_pairs_by_number():
    from gaji_lab.bench.followups import in_part, load_pairs, PAIRS

    ids = [p.id for p in load_pairs(PAIRS)]
    dev = [i for i in ids if in_part(i, "dev")]
    report = [i for i in ids if in_part(i, "report")]
    assert set(dev).isdisjoint(report) and set(dev) | set(report) == set(ids)
    assert "ko-01" in dev and "ko-02" in report and abs(len(dev) - len(report)) <= 2
