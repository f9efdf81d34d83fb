import pytest

from gaji.api import Gaji
from gaji.config import Settings
from gaji.errors import ConfigError


class RecordingIndex:
    def __init__(self):
        self.made = []

    def retriever(self, name, **kw):
        self.made.append((name, {k: v for k, v in kw.items() if k != "get_llm"}))
        return object()


def gaji_with(retriever, options):
    g = Gaji(settings=Settings(llm="scripted", retriever=retriever, retriever_options=options))
    g._index = RecordingIndex()
    return g


def test_retriever_options_go_typed_to_the_settings_retriever_only():
    g = gaji_with("contre", {"max_depth": "1", "base": "bm25"})
    r = g.retriever()
    assert g.retriever() is r  # built once
    assert g.retriever("hybrid") is not None
    assert g._index.made == [("contre", {"max_depth": 1, "base": "bm25"}), ("hybrid", {})]


def test_an_unknown_retriever_option_is_a_config_error():
    g = gaji_with("hybrid", {"max_depth": "1"})
    with pytest.raises(ConfigError, match="retriever 'hybrid' has no option 'max_depth'"):
        g.retriever()


def test_a_retriever_given_in_code_answers_instead_of_the_index():
    from gaji.testing import ListRetriever

    own = ListRetriever([("d1", "T", "text")])
    g = Gaji(retriever=own, settings=Settings(llm="scripted"))
    assert g.given_retriever is own and g.retriever() is own
    plain = Gaji(settings=Settings(llm="scripted"))
    assert plain.given_retriever is None and plain.retriever() is None  # no index either


@pytest.mark.parametrize("method, options, message", [
    ("ircot", {"reader": "bogus"}, "reader must be one of cot, direct"),
    ("chain", {"stop": "sometimes"}, "stop must be one of"),
    ("chain", {"stop": "classifier"}, "needs -o classifier=DIR"),
    ("contregen", {"topic_gate": "1.5"}, "topic_gate must be a cosine"),
    ("toq", {"decomposer": "routed", "router": "/nonexistent/router.json"}, "no shape router here"),
    ("cot", {"demos": "/nonexistent/demos.jsonl"}, "demonstrations file not found"),
])
def test_a_bad_option_fails_when_the_method_is_made_before_any_call(method, options, message):
    from gaji.errors import GajiError
    from gaji.llm.scripted import ScriptedLLM

    llm = ScriptedLLM(default="Guam")
    g = Gaji(llm=llm, settings=Settings(retries=0))
    with pytest.raises(GajiError, match=message):
        g.ask("Which battle came first?", method=method, options=options)
    assert llm.requests == []


def test_the_settings_k_is_checked_like_a_method_option():
    s = Settings(llm="scripted")
    s.k = 0
    s.sources["k"] = "flag"
    with pytest.raises(ConfigError, match="option k of method 'toq' must be at least 1"):
        Gaji(settings=s).make_method("toq")


def test_a_settings_object_given_to_gaji_is_never_changed():
    s = Settings(llm="scripted", retriever="contre", retriever_options={"max_depth": "1"})
    s.sources["k"] = "flag"
    a = Gaji(index="/idx/a", settings=s, k=7, retriever_options={"base": "bm25"})
    b = Gaji(index="/idx/b", settings=s)
    assert s.index is None and s.k == 5 and s.retriever_options == {"max_depth": "1"}  # the caller's, untouched
    assert (a.settings.index, b.settings.index) == ("/idx/a", "/idx/b")  # two instances, two indexes
    assert a.settings.k == 7 and b.settings.k == 5 and b.settings.retriever_options == {"max_depth": "1"}
    a.settings.sources["k"] = "changed"
    a.settings.retriever_options["node_k"] = "3"
    assert s.sources["k"] == "flag" and "node_k" not in s.retriever_options and "node_k" not in b.settings.retriever_options
