import pytest

from gaji.errors import LLMError
from gaji.llm.scripted import ScriptedLLM
from gaji.llm.tracked import TrackedLLM, parse_json, validate
from gaji.types import Node

SCHEMA = {"type": "object", "properties": {"relevance": {"type": "string", "enum": ["relevant", "irrelevant"]},
                                           "score": {"type": "integer", "minimum": 0, "maximum": 100}},
          "required": ["relevance"]}


def test_calls_are_recorded_with_tokens():
    node = Node()
    llm = TrackedLLM(ScriptedLLM([(r"capital", "Seoul is the capital")]))
    out = llm.chat(node, "answer", [{"role": "user", "content": "what is the capital"}])
    assert out == "Seoul is the capital"
    (c,) = node.calls
    assert c.purpose == "answer" and c.prompt_tokens == 4 and c.completion_tokens == 4 and c.ok


def test_failure_is_retried_then_reported_on_the_node():
    node = Node()
    backend = ScriptedLLM([(r".*", RuntimeError("server down"))])
    llm = TrackedLLM(backend, retries=2, backoff_s=0)
    with pytest.raises(LLMError, match="after 3 attempt"):
        llm.chat(node, "answer", [{"role": "user", "content": "x"}])
    assert len(backend.requests) == 3
    assert node.calls[-1].ok is False and "server down" in node.calls[-1].error


def test_invalid_json_is_retried_with_another_seed():
    replies = iter(['{"relevance": "maybe"}', '{"relevance": "relevant", "score": 70}'])
    backend = ScriptedLLM([(r".*", lambda req: next(replies))])
    node = Node()
    obj = TrackedLLM(backend, backoff_s=0).json(node, "judge", [{"role": "user", "content": "x"}], schema=SCHEMA)
    assert obj == {"relevance": "relevant", "score": 70}
    assert [r.seed for r in backend.requests] == [0, 1]
    assert node.calls[0].ok is False and node.calls[1].ok is True
    assert backend.requests[0].json_schema == SCHEMA


def test_parse_json_tolerates_fences_and_chatter():
    assert parse_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json('Here it is: {"a": [1, 2]} done') == {"a": [1, 2]}
    with pytest.raises(ValueError):
        parse_json("no json here")


def test_validate_names_the_failing_path():
    with pytest.raises(ValueError, match=r"\$.score: 101 > maximum"):
        validate({"relevance": "relevant", "score": 101}, SCHEMA)
    with pytest.raises(ValueError, match="missing field 'relevance'"):
        validate({}, SCHEMA)
    with pytest.raises(ValueError, match="expected integer"):
        validate({"relevance": "relevant", "score": True}, SCHEMA)
