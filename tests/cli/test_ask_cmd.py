"""`gaji ask`'s text rendering: when the question tree is shown; its flags."""
import pytest
from rich.console import Console

from gaji.cli.ask_cmd import print_trace
from gaji.types import Stop, Trace


def rendered(trace: Trace) -> str:
    con = Console(record=True, width=160, color_system=None)
    print_trace(trace, con)
    return con.export_text()


def test_a_root_the_evaluator_accepted_shows_its_scores_and_why_it_was_not_split():
    t = Trace(question="Which battle came first?", method="toq", answer="Guam")
    t.root.answer = "Guam"
    t.root.scores = {"semantic_coherence": 9, "answerability": 90, "overall": 9, "response_validity": True}
    t.root.stop = Stop(reason="the evaluator accepted the answer", by="evaluator")
    out = rendered(t)
    assert "L0 root" in out and "response_validity ✓" in out and "stop: the evaluator accepted the answer" in out and "Answer: Guam" in out


def test_a_bad_method_option_is_a_usage_error_before_the_question_runs(capsys):
    from gaji.cli.main import main

    assert main(["ask", "Which battle came first?", "--method", "ircot", "-o", "reader=bogus", "--llm", "scripted"]) == 2
    err = capsys.readouterr().err
    assert "error: ircot: reader must be one of cot, direct, not 'bogus'" in err and "Traceback" not in err


def test_a_decided_root_shows_its_description_and_a_trace_without_one_is_described():
    fresh = Trace(question="Which battle came first?", method="chain", answer="Guam")
    fresh.root.data.update(stop_reason="max_length", closed_book=True)
    out = rendered(fresh)  # no description stored: the chain describes it when it is printed
    assert "stop: max_length" in out and "retrieval: closed book" in out and "L0 root" in out


def test_a_single_call_answer_has_no_tree():
    t = Trace(question="Which battle came first?", method="oner", answer="Guam")
    out = rendered(t)
    assert "Answer: Guam" in out and "L0" not in out and "scores" not in out


def test_sources_say_where_in_the_file():
    from gaji.types import Location, Passage

    t = Trace(question="두루미 습지는 어디에 있나?", method="oner", answer="철원 평야")
    p = Passage(id="보고서.pdf#page2", doc_id="보고서.pdf#page2", title="보고서", text="두루미 습지 보호구역은 철원 평야에 있다.",
                location=Location(file="보고서.pdf", page=2))
    t.passages[p.id] = p
    t.citations = [p.id]
    out = rendered(t)
    assert "보고서.pdf#page2  (보고서.pdf · p. 2)" in out


def test_k_out_of_range_is_a_usage_error_naming_the_range(capsys):
    from gaji.cli.main import main

    assert main(["ask", "Which battle came first?", "--method", "oner", "-k", "1000", "--llm", "scripted"]) == 2
    err = capsys.readouterr().err
    assert "error: flag --k: setting 'k' must be between 1 and 100, not 1000" in err and "Traceback" not in err
    assert main(["ask", "Which battle came first?", "--method", "toq", "-o", "max_depth=1000", "--llm", "scripted"]) == 2
    err = capsys.readouterr().err
    assert "option 'max_depth' of method 'toq' must be between 1 and 8, not 1000" in err and "Traceback" not in err


def test_a_recipe_is_asked_by_method_or_recipe_and_the_trace_names_it(capsys):
    import json

    from gaji.cli.main import main

    assert main(["ask", "When did the Battle of Guam end?", "--recipe", "closed", "--llm", "scripted:1944", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "nor" and out["recipe"] == "closed@1" and out["answer"] == "1944"
    assert main(["ask", "괌 전투는 언제 끝났나?", "--method", "closed", "--llm", "scripted:1944년", "--no-stream"]) == 0
    assert "nor (closed@1)" in capsys.readouterr().out
    assert main(["ask", "q?", "--method", "oner", "--recipe", "tree", "--llm", "scripted"]) == 2
    err = capsys.readouterr().err
    assert "error: --recipe tree runs method 'toq', not --method 'oner'" in err and "Traceback" not in err
    assert main(["ask", "q?", "--recipe", "forest", "--llm", "scripted"]) == 2
    assert "unknown recipe 'forest'; known: closed, one" in capsys.readouterr().err


def test_effort_is_auto_s_knob_and_an_error_elsewhere(capsys):
    from gaji.cli.main import main

    assert main(["ask", "Which battle came first?", "--method", "oner", "--effort", "high", "--llm", "scripted"]) == 2
    assert "--effort is an option of method auto" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # argparse's usage error names the choices
        main(["ask", "Which battle came first?", "--effort", "extreme", "--llm", "scripted"])
    assert e.value.code == 2 and "low, medium, high" in capsys.readouterr().err.replace("'", "")
