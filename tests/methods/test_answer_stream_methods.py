"""The generic answer-streaming hook: every method whose answer is one free-text call on the root
(`answer_purposes`) streams it when the run asks for it, with no change to the method."""
import pytest

from gaji.api import Gaji
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.testing import ListRetriever

DOCS = [("en-guam", "Battle of Guam", "The Battle of Guam was fought from 21 July to 10 August 1944.")]


@pytest.mark.parametrize("method", ["nor", "oner", "chain", "ircot", "cot"])
def test_the_answer_call_streams_and_the_trace_is_unchanged(method):
    def run(on_answer):
        llm = ScriptedLLM(default="So the answer is: 10 August 1944")
        g = Gaji(llm=llm, retriever=ListRetriever(DOCS), settings=Settings(retries=0, k=1))
        return g.ask("When did the Battle of Guam end?", method=method, on_answer=on_answer), llm

    got = []
    streamed, llm = run(got.append)
    plain, _ = run(None)
    assert got and {p.draft for p in got} == {1}
    assert "".join(p.text for p in got) == "So the answer is: 10 August 1944"  # the model's own words, in pieces
    assert len(got) > 1
    tokens = ("calls", "prompt_tokens", "completion_tokens", "failed_calls")
    assert streamed.answer == plain.answer
    assert [getattr(streamed.usage(), k) for k in tokens] == [getattr(plain.usage(), k) for k in tokens]
