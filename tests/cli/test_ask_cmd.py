"""`gaji ask`'s text rendering: when the question tree is shown."""
from rich.console import Console

from gaji.cli.ask_cmd import print_trace
from gaji.types import Trace


def rendered(trace: Trace) -> str:
    con = Console(record=True, width=160, color_system=None)
    print_trace(trace, con)
    return con.export_text()


def test_a_root_the_evaluator_accepted_shows_its_scores_and_why_it_was_not_split():
    t = Trace(question="Which battle came first?", method="toq", answer="Guam")
    t.root.answer = "Guam"
    t.root.scores = {"semantic_coherence": 9, "answerability": 90, "overall": 9, "response_validity": True}
    t.root.data["stop"] = "the evaluator accepted the answer"
    out = rendered(t)
    assert "L0 root" in out and "valid ✓" in out and "stop: the evaluator accepted the answer" in out and "Answer: Guam" in out


def test_a_single_call_answer_has_no_tree():
    t = Trace(question="Which battle came first?", method="oner", answer="Guam")
    out = rendered(t)
    assert "Answer: Guam" in out and "L0" not in out and "scores" not in out
