"""The method contract's option checks: every numeric option is inside its range however the options were made."""
from __future__ import annotations

import pytest

from gaji.errors import ConfigError
from gaji.registry import METHODS


@pytest.mark.parametrize("method, raw, message", [
    ("oner", {"k": 1e9}, "option 'k' of method 'oner' must be between 1 and 100, not 1000000000"),
    ("oner", {"k": "101"}, "option 'k' of method 'oner' must be between 1 and 100, not 101"),
    ("oner", {"k": -5}, "option 'k' of method 'oner' must be between 1 and 100, not -5"),
    ("toq", {"max_depth": 1000}, "option 'max_depth' of method 'toq' must be between 1 and 8, not 1000"),
    ("toq", {"max_nodes": 10**6}, "option 'max_nodes' of method 'toq' must be between 1 and 500"),
    ("ircot", {"max_steps": 10**9}, "option 'max_steps' of method 'ircot' must be between 1 and 50"),
    ("chain", {"max_length": 10**9}, "option 'max_length' of method 'chain' must be between 1 and 50"),
    ("contregen", {"max_depth": 99}, "option 'max_depth' of method 'contregen' must be between 0 and 8, not 99"),
    ("self_ask", {"max_followups": 10**4}, "option 'max_followups' of method 'self_ask' must be between 0 and 50"),
    ("iter_retgen", {"iterations": 10**4}, "option 'iterations' of method 'iter_retgen' must be between 1 and 50"),
    ("auto", {"k": 500}, "option 'k' of method 'auto' must be between 0 and 100, not 500"),
])
def test_an_option_out_of_range_is_refused_naming_it_and_the_range(method, raw, message):
    cls = METHODS.get(method)
    with pytest.raises(ConfigError, match=message):
        cls(cls.parse_options(raw))


def test_options_made_in_code_are_checked_too():
    oner = METHODS.get("oner")
    with pytest.raises(ConfigError, match="option 'k' of method 'oner' must be between 1 and 100"):
        oner(k=1000)
    with pytest.raises(ConfigError, match="option 'k' of method 'oner'"):
        oner(oner.Options(k=0))
    assert oner(k=100).opts.k == 100
    assert METHODS.get("auto")(k=0).opts.k == 0  # auto's 0: the routed method's own k
    assert METHODS.get("contregen")(max_depth=0).opts.max_depth == 0


def test_a_cited_spreadsheet_passage_names_the_row_of_the_answer(tmp_path):
    from gaji.corpus.docgen import write_xlsx
    from gaji.index.build import build_index
    from gaji.llm.scripted import ScriptedLLM
    from gaji.llm.tracked import TrackedLLM
    from gaji.methods.base import RunContext

    rows = [["부서", "예산"], ["모바일사업부", "48억 원"], ["등대사업부", "77억 원"], ["반딧불사업부", "12억 원"]]
    (tmp_path / "docs").mkdir()
    write_xlsx(tmp_path / "docs" / "예산.xlsx", {"부서별": rows})
    idx = build_index([tmp_path / "docs"], tmp_path / "idx", dense=False, progress=False)
    try:
        llm = ScriptedLLM([(r"등대사업부", "답: 77억 원\n근거: [1]")])
        t = METHODS.get("oner")(k=1).run("등대사업부의 예산은?", RunContext(llm=TrackedLLM(llm, backoff_s=0),
                                                                     retriever=idx.retriever("bm25")))
    finally:
        idx.close()
    assert t.answer == "77억 원" and t.citations == ["예산.xlsx#sheet1"]
    cited = t.passages["예산.xlsx#sheet1"]
    assert cited.location.rows == [3, 3] and cited.location.label() == "예산.xlsx · 부서별 · row 3"
    assert "3행 · 부서: 등대사업부 · 예산: 77억 원" in cited.text.splitlines()
