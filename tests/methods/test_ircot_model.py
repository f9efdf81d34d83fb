"""IRCoT end to end on the real 0.5B model over a tiny English corpus: a smoke test of the loop
(prompts fit, steps are one sentence, every call is counted), not of a 0.5B model's answers."""
from __future__ import annotations

import pytest

from gaji.llm.tracked import TrackedLLM
from gaji.methods.base import RunContext
from gaji.methods.ircot import IRCoT
from gaji.testing import ListRetriever

CORPUS = [
    ("lost-gravity", "Lost Gravity (roller coaster)", "Lost Gravity is a steel roller coaster at Walibi Holland "
     "in the Netherlands. It was manufactured by Mack Rides and opened in 2016."),
    ("mack-rides", "Mack Rides", "Mack Rides GmbH & Co KG is an amusement ride manufacturer based in Waldkirch, "
     "Germany. The company was founded in 1780."),
    ("walibi", "Walibi Holland", "Walibi Holland is an amusement park in Biddinghuizen, Flevoland, Netherlands."),
    ("intamin", "Intamin", "Intamin is a Swiss amusement ride manufacturer based in Schaan, Liechtenstein."),
    ("vekoma", "Vekoma", "Vekoma Rides Manufacturing is a Dutch roller coaster manufacturer from Vlodrop."),
    ("waldkirch", "Waldkirch", "Waldkirch is a town in the district of Emmendingen in Baden-Württemberg, Germany."),
]




@pytest.mark.model
@pytest.mark.timeout(180)  # ~35 s on an idle 2-core machine; headroom for a busy one
def test_ircot_runs_on_the_small_model(small_model):
    ctx = RunContext(llm=TrackedLLM(small_model), retriever=ListRetriever(CORPUS))
    # one demonstration and short generations keep this fast on a busy 2-core machine
    opts = dict(k=2, max_steps=2, m=1, max_demos=1, step_tokens=32, reader_tokens=48)
    t = IRCoT(**opts).run("In which country is the manufacturer of Lost Gravity based?", ctx)
    assert t.status == "ok", t.error
    steps = [c for c in t.root.children if c.kind == "step"]
    assert 1 <= len(steps) <= 2
    assert t.usage().calls >= len(steps) + 1  # a step may resume after an abbreviation
    assert all(s.calls[0].purpose == "reason" for s in steps)
    assert t.root.calls[-1].purpose == "answer"
    ok = [c for c in t.calls() if c.ok]
    assert ok and all(c.prompt_tokens > 0 for c in ok)
    assert all(c.prompt_tokens + c.completion_tokens <= small_model.context_size for c in ok)
    assert all(s.data["demos"] == 1 for s in steps)
    assert len(t.root.data["collected_ids"]) <= 15 and t.citations
    assert t.answer.strip()
