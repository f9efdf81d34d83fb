"""Where a query's keywords come from (gaji.expand.keyword_source): a given callable, or the tagger a folder names."""
import pytest

from gaji.errors import ConfigError
from gaji.expand import keyword_source
from gaji.expand.keyword_source import keyword_fn


def test_a_given_function_wins_and_no_tagger_is_loaded(monkeypatch):
    monkeypatch.setenv("GAJI_TAGGER", "/nowhere")
    fn = lambda q: ["김치"]  # noqa: E731
    assert keyword_fn("/also/nowhere", fn) is fn


def test_without_a_tagger_the_error_says_how_to_get_one(monkeypatch):
    monkeypatch.delenv("GAJI_TAGGER", raising=False)
    with pytest.raises(ConfigError, match=r"tagger=DIR .*gaji expand train-tagger.* or \$GAJI_TAGGER"):
        keyword_fn(None)


def test_the_tagger_folder_comes_from_the_argument_or_the_environment_and_is_loaded_once(monkeypatch):
    loaded = []

    class FakeTagger:
        def __init__(self, path):
            self.path = path

        def keywords(self, q):
            return [f"{self.path}:{q}"]

    monkeypatch.setattr(keyword_source, "_TAGGERS", {})
    import gaji.expand.tagger as tagger

    monkeypatch.setattr(tagger.KeywordTagger, "load", classmethod(lambda cls, p: loaded.append(p) or FakeTagger(p)))
    monkeypatch.setenv("GAJI_TAGGER", "runs/env-tagger")
    assert keyword_fn(None)("q") == ["runs/env-tagger:q"]
    assert keyword_fn("runs/tagger")("질문") == ["runs/tagger:질문"]
    keyword_fn("runs/tagger")
    assert loaded == ["runs/env-tagger", "runs/tagger"]
