"""Few-shot helpers: bundled demonstrations, prompt fitting, CoT text parsing."""
import json

import pytest

from gaji.errors import InputError
from gaji.methods.fewshot import (
    TokenCounter,
    answer_after_marker,
    cot_answer,
    first_sentence,
    fit_prompt,
    has_answer_marker,
    load_demos,
)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_bundled_demos_are_consistent(lang):
    demos = load_demos(lang)
    assert len(demos) >= 6
    for d in demos:
        assert has_answer_marker(d.cot[-1]) and answer_after_marker(d.cot_text) == d.answer, d.id
        assert d.followups and len(d.gold) >= 2 and len(d.distractors) >= 3, d.id
        assert [first_sentence(" ".join(d.cot[i:]) ) for i in range(len(d.cot))] == list(d.cot), d.id
        paras = d.paragraphs(2)
        assert len(paras) == len(d.gold) + 2 and set(d.gold) <= set(paras)
        assert d.paragraphs(2) == paras  # deterministic order


def test_demo_file_errors_name_line_and_field(tmp_path):
    p = tmp_path / "d.jsonl"
    good = {"question": "q", "answer": "a", "cot": ["So the answer is: a."], "gold": [{"title": "t", "text": "x"}]}
    p.write_text(json.dumps(good) + "\n" + json.dumps({**good, "cot": []}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_demos("en", str(p))
    assert e.value.line == 2 and e.value.field == "cot"
    with pytest.raises(InputError):
        load_demos("en", str(tmp_path / "missing.jsonl"))
    p.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert load_demos("en", str(p))[0].answer == "a"


def test_first_sentence_and_markers():
    assert first_sentence(" It was made by F. W. Murnau in 1922. Then more.") == "It was made by F. W. Murnau in 1922."
    assert first_sentence("He moved to St. Louis in 1900. X") == "He moved to St. Louis in 1900."
    assert first_sentence("세종은 태종의 아들이다. 따라서 정답은: 태종.") == "세종은 태종의 아들이다."
    assert first_sentence("no end") == "no end" and first_sentence("") == ""
    assert answer_after_marker("So the answer is: Washington, D.C.") == "Washington, D.C."
    assert answer_after_marker("So the answer is: yes. Q: more") == "yes"
    assert answer_after_marker("따라서 정답은: 「토지」.") == "토지"
    assert answer_after_marker("the answer is unclear") is None
    assert cot_answer("no marker here ") == "no marker here"


def test_fit_prompt_keeps_test_paragraphs_before_demos():
    count = TokenCounter(lambda s: len(s.split()))
    demos = ["d " * 10, "e " * 10, "f " * 10]

    def test(n):
        return " ".join(["p"] * (5 * n)) + " Q: q A:"

    f = fit_prompt(count, 100, "h", demos, test, 4, reserve=10)
    assert f.paragraphs == 4 and f.demos == 3
    f = fit_prompt(count, 60, "h", demos, test, 4, reserve=10)
    assert f.paragraphs == 4 and f.demos == 1
    f = fit_prompt(count, 30, "h", demos, test, 4, reserve=10)
    assert f.paragraphs < 4 and f.demos == 0
    assert fit_prompt(count, 100, "h", demos, test, 4, reserve=10, max_demos=2).demos == 2


def test_period_continues_only_inside_names():
    from gaji.methods.fewshot import period_continues

    assert period_continues("directed by F") and period_continues("moved to St") and period_continues("the U.S")
    assert not period_continues("So the answer is: no") and not period_continues("born in 1903")
    assert not period_continues("Martin Luther King Jr") and not period_continues("")


def test_generate_chain_stops_after_the_answer_sentence():
    from cot_helpers import continuation

    from gaji.llm.scripted import ScriptedLLM
    from gaji.llm.tracked import TrackedLLM
    from gaji.methods.fewshot import generate_chain
    from gaji.types import Node

    llm = ScriptedLLM(default=continuation("It is by F. W. Murnau. So the answer is: no. So the answer is: no."))
    node = Node()
    text = generate_chain(TrackedLLM(llm), node, "answer", "Q: q\nA:", [], 100)
    assert text == "It is by F. W. Murnau. So the answer is: no."
    assert len(node.calls) == 4  # "It is by F", "W", "Murnau", "So the answer is: no"
    assert all(". " in r.stop and "\n" in r.stop for r in llm.requests)


def test_the_full_marker_phrase_works_without_its_colon():
    from gaji.methods.fewshot import answer_after_marker, has_answer_marker

    assert answer_after_marker("So the answer is 1945.") == "1945"
    assert has_answer_marker("따라서 정답은 1446년입니다.")
    # a bare "answer is" without the colon is not the marker: it also opens refusals
    assert not has_answer_marker("The answer is not in the passages.")
