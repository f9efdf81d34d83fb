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
