from types import SimpleNamespace

import pytest

from gaji_lab.bench.trim import Cut, Evidence, Question, cuts, render, score
from gaji.errors import ConfigError

LONG = ("세종은 조선의 왕이다. " * 30) + "훈민정음은 1446년에 반포되었다. " + ("경복궁은 서울에 있다. " * 30)
P = [SimpleNamespace(id="hun-0", doc_id="hun", text=LONG),
     SimpleNamespace(id="other-0", doc_id="other", text="1446년은 병인년이다.")]


def q(evidence, question="훈민정음은 몇 년에 반포되었나요?", qtype="bridging"):
    return Question("q1", qtype, question, evidence)


def test_relevant_sentences_keep_what_the_head_cuts_off():
    rows = {r.cut.name: r for r in score([q([Evidence(("1446년",), "hun")])], {"q1": P}, cuts([200]))}
    assert (rows["uncut"].kept, rows["uncut"].present) == (1, 1)
    assert (rows["head 200"].kept, rows["head 200"].present) == (0, 1)
    assert (rows["relevant 200"].kept, rows["relevant 200"].present) == (1, 1)
    assert rows["head 200"].chars < rows["uncut"].chars and rows["head 200"].by_type == {"bridging": [0, 1]}


def test_evidence_counts_only_in_its_own_paragraph_and_only_when_present_uncut():
    # the sub-answer is in another paragraph too: only the step's own paragraph counts
    rows = score([q([Evidence(("1446년",), "hun"), Evidence(("1500년",), "hun")])], {"q1": P}, cuts([200]))
    assert all(r.present == 1 for r in rows)
    # an answer without a paragraph counts wherever it is: the short one keeps it under any cut
    rows = score([q([Evidence(("1446 년", "1446년"))])], {"q1": P}, cuts([200], ["head"]))
    assert [(r.kept, r.present) for r in rows] == [(1, 1), (1, 1)]


def test_cuts_are_checked_and_rendered():
    assert [c.name for c in cuts([300, 500], ["relevant"])] == ["uncut", "relevant 300", "relevant 500"]
    with pytest.raises(ConfigError, match="unknown trim"):
        cuts([300], ["middle"])
    with pytest.raises(ConfigError, match="at least 1"):
        cuts([0])
    rows = score([q([Evidence(("1446년",), "hun")])], {"q1": P}, [Cut("none", 0)])
    md = render(rows, 1, {"data": "komultihop-dev", "k": 2, "retriever": "hybrid"})
    assert "| uncut | 1/1 (100 %) |" in md and "bridging" in md


@pytest.mark.data
def test_the_korean_dev_part_gives_every_step_its_sub_answer_and_paragraph():
    from gaji.eval import komultihop as km
    from gaji_lab.bench.trim import questions_of

    try:
        km.korquad_path()
    except ConfigError:  # no KorQuAD dev file: ../shared/data is not beside the clone
        pytest.skip("the KorQuAD 1.0 dev file of ../shared/data is not beside this clone (CI provides it)")
    ds, qs = questions_of("komultihop-dev")
    assert len(qs) == len(ds.items) >= 60
    assert all(len(x.evidence) >= 2 and all(e.doc_id.startswith("korquad-") for e in x.evidence) for x in qs)


@pytest.mark.parametrize("flags, message", [(["--chars", "300,abc"], "--chars must be whole numbers"),
                                            (["--trims", "middle"], "unknown trim 'middle'")])
def test_bad_flags_are_clear_errors_before_anything_is_retrieved(capsys, flags, message):
    from gaji.cli.main import main

    assert main(["bench", "trim", "--data", "komultihop-dev", *flags]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
