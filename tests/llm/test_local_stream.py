"""The embedded backend streams token by token (`model`: the real 0.5B GGUF, one shared session model)."""
from __future__ import annotations

import pytest

from gaji.llm.base import Request
from gaji.llm.tracked import TrackedLLM
from gaji.types import Node

pytestmark = pytest.mark.model
MSGS = [{"role": "user", "content": "List the numbers one to five in words, separated by commas."}]


def test_streamed_text_and_counts_match_the_plain_call(small_llm):
    pieces: list[str] = []
    req = Request(messages=MSGS, max_tokens=24, temperature=0.0)
    streamed = small_llm.generate_stream(req, pieces.append)
    plain = small_llm.generate(req)
    assert len(pieces) > 3 and "".join(pieces) == streamed.text == plain.text
    assert streamed.completion_tokens == plain.completion_tokens > 3
    assert streamed.prompt_tokens == plain.prompt_tokens > 10
    node = Node()
    TrackedLLM(small_llm).call(node, "answer", req, on_text=lambda t: None)
    assert node.calls[0].completion_tokens == plain.completion_tokens  # recorded once, real counts


def test_an_exception_from_the_sink_stops_the_generation(small_llm):
    class Stop(BaseException):
        pass

    seen: list[str] = []

    def sink(text: str) -> None:
        seen.append(text)
        if len(seen) == 2:
            raise Stop()

    with pytest.raises(Stop):
        small_llm.generate_stream(Request(messages=MSGS, max_tokens=48), sink)
    assert len(seen) == 2
    assert small_llm.generate(Request(messages=MSGS, max_tokens=4)).text  # the slot is free again
