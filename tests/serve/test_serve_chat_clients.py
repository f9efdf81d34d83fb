"""What each chat client shows: a live `gaji serve` (scripted LLM, loopback) driven by the `openai` client,
LangChain's ChatOpenAI (invoke and stream) and LlamaIndex's OpenAILike; the sources are in what each
returns to its caller, and the annotations parse the way Open WebUI's middleware reads them."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

openai = pytest.importorskip("openai", reason="the openai client is in the `test` extra")

from gaji.methods.base import Method  # noqa: E402
from gaji.methods.common import plain_answer  # noqa: E402
from gaji.registry import METHODS  # noqa: E402

KEY = "s3cret-key"
QUESTION = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
CASES = [json.loads(line) for line in
         (Path(__file__).parent.parent / "methods" / "span_cases.jsonl").read_text("utf-8").splitlines() if line]


@METHODS.register("test_echo", help="test double: the scripted reply to 'ECHO: <question>', streamed, no retrieval")
class Echo(Method):
    name = "test_echo"
    needs_retriever = False

    @dataclass
    class Options:
        pass

    def solve(self, trace, ctx):
        reply = ctx.llm.chat(trace.root, "answer", [{"role": "user", "content": "ECHO: " + trace.question}])
        trace.answer = plain_answer(reply)


@pytest.fixture
def app(make_app, scripted):
    llm = scripted(_extra=[(re.escape("ECHO: " + c["question"]) + "$", c["reply"]) for c in CASES])
    llm.stream_delay_s = 0.001
    return make_app(llm=llm, api_key=KEY)


def client(url: str) -> "openai.OpenAI":
    return openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0, timeout=180)


def streamed_text(chunks) -> str:
    """What a client shows at the end of a stream: the text after the last revision mark."""
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text.split("\n\n↻ ")[-1]


@pytest.fixture
def plain_app(make_app, scripted):
    """oner's model answers "Battle of Guam" (no labels): the answer cites both battles' passages."""
    llm = scripted(**{r"(?:Question|질문):": "Battle of Guam"})
    llm.stream_delay_s = 0.001
    return make_app(llm=llm, api_key=KEY)


def test_streamed_and_plain_answers_agree_on_the_regression_set(app, live_server):
    firsts = list({c["question"]: c for c in reversed(CASES)}.values())  # one reply per question (the first)
    assert len(firsts) >= len(CASES) - 2
    with live_server(app) as url:
        c = client(url)
        for case in firsts:
            msgs = [{"role": "user", "content": case["question"]}]
            plain = c.chat.completions.create(model="gaji-test_echo", messages=msgs)
            chunks = list(c.chat.completions.create(model="gaji-test_echo", messages=msgs, stream=True))
            content = plain.choices[0].message.content
            assert streamed_text(chunks) == content, case["question"]
            assert plain.model_extra["gaji"]["answer"] == case["answer"]
            assert case["answer"] in content  # the short answer is shown, apart or as the text itself


def test_sources_reach_every_client_that_people_use(plain_app, live_server):
    with live_server(plain_app) as url:
        got = _openai(url) | _langchain(url) | _llamaindex(url)
        page = httpx.get(got["openai_url"])
    for name in ("openai", "openai_stream", "langchain_invoke", "langchain_stream", "llamaindex_chat",
                 "llamaindex_stream"):
        text = got[name]
        assert text.startswith("Battle of Guam [1][2]"), (name, text)
        assert "**Sources**\n[1] [Battle of Guam](http://127.0.0.1:" in text, (name, text)
    assert page.status_code == 200 and 'id="passage"' in page.text and "The Battle of Guam was fought" in page.text


def _openai(url: str) -> dict[str, str]:
    c = client(url)
    msgs = [{"role": "user", "content": QUESTION}]
    resp = c.chat.completions.create(model="gaji-oner", messages=msgs)
    stream = list(c.chat.completions.create(model="gaji-oner", messages=msgs, stream=True))
    return {"openai": resp.choices[0].message.content, "openai_stream": streamed_text(stream),
            "openai_url": resp.choices[0].message.annotations[0].url_citation.url}


def _langchain(url: str) -> dict[str, str]:
    lc = pytest.importorskip("langchain_openai", reason="langchain-openai is in the `test` extra")
    llm = lc.ChatOpenAI(model="gaji-oner", base_url=f"{url}/v1", api_key=KEY, max_retries=0, timeout=180)
    said = llm.invoke(QUESTION)
    pieces = "".join(str(chunk.content) for chunk in llm.stream(QUESTION))
    return {"langchain_invoke": str(said.content), "langchain_stream": pieces}


def _llamaindex(url: str) -> dict[str, str]:
    li = pytest.importorskip("llama_index.llms.openai_like", reason="llama-index-llms-openai-like is in `test`")
    from llama_index.core.llms import ChatMessage

    llm = li.OpenAILike(model="gaji-oner", api_base=f"{url}/v1", api_key=KEY, is_chat_model=True,
                        max_retries=0, timeout=60)
    said = llm.chat([ChatMessage(role="user", content=QUESTION)])
    last = None
    for last in llm.stream_chat([ChatMessage(role="user", content=QUESTION)]):
        pass
    return {"llamaindex_chat": str(said.message.content), "llamaindex_stream": str(last.message.content)}


def open_webui_sources(sse: str) -> list[dict]:
    """The sources Open WebUI's middleware makes of a stream (backend/open_webui/utils/middleware.py: each
    chunk's `choices[0].delta.annotations`, entries of type url_citation with a `url_citation` object, its
    `url`, and `title` defaulting to the url)."""
    out = []
    for line in sse.splitlines():
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        data = json.loads(line[len("data:"):].strip())
        choices = data.get("choices", [])
        if not choices:
            continue
        for annotation in choices[0].get("delta", {}).get("annotations") or []:
            if annotation.get("type") == "url_citation" and "url_citation" in annotation:
                u = annotation["url_citation"]
                out.append({"name": u.get("title", u.get("url", "")), "url": u.get("url", "")})
    return out


def test_open_webui_reads_a_source_per_marker(plain_app, live_server):
    with live_server(plain_app) as url:
        with httpx.stream("POST", f"{url}/v1/chat/completions", headers={"Authorization": f"Bearer {KEY}"},
                          json={"model": "gaji-oner", "stream": True,
                                "messages": [{"role": "user", "content": QUESTION}]}, timeout=60) as r:
            sse = r.read().decode("utf-8")
        sources = open_webui_sources(sse)
        pages = [httpx.get(s["url"]) for s in sources]
    assert [s["name"] for s in sources] == ["Battle of Guam", "Battle of Manila"]
    assert all(p.status_code == 200 and 'class="doc-chunk cited" id="passage"' in p.text for p in pages)
    assert "Battle of Manila was fought" in pages[1].text


def test_passage_pages_refuse_made_up_links_and_offer_no_original_for_a_record(plain_app, live_server):
    with live_server(plain_app) as url:
        resp = client(url).chat.completions.create(model="gaji-oner",
                                                   messages=[{"role": "user", "content": QUESTION}])
        link = resp.choices[0].message.annotations[0].url_citation.url
        good = httpx.get(link)
        payload, _, mac = link.rsplit("/", 1)[1].partition(".")
        tampered = httpx.get(f"{url}/passage/{payload[:-2]}xy.{mac}")
        garbage = httpx.get(f"{url}/passage/..%2F..%2Fetc%2Fpasswd")
    assert good.status_code == 200 and 'id="passage"' in good.text
    assert "/original/" not in good.text  # a document that was not read from a file has no original to open
    assert good.headers["content-security-policy"].startswith("default-src 'self'")
    assert tampered.status_code == 404 and garbage.status_code == 404


def test_the_sources_block_can_be_turned_off(plain_app, live_server):
    with live_server(plain_app) as url:
        resp = client(url).chat.completions.create(model="gaji-oner", messages=[{"role": "user", "content": QUESTION}],
                                                   extra_body={"gaji": {"sources": False}})
    content = resp.choices[0].message.content
    assert content.startswith("Battle of Guam [1][2]") and "**Sources**" not in content
    assert len(resp.choices[0].message.annotations) == 2


def test_a_reply_in_the_prompts_format_is_shown_without_its_labels(make_app, scripted, live_server):
    """The model wrote "Answer: …\nSources: [1]": the stream showed that as it came, then the clean text
    after a revision mark; the plain response is the clean text."""
    with live_server(make_app(llm=scripted(), api_key=KEY)) as url:
        c = client(url)
        plain = c.chat.completions.create(model="gaji-oner", messages=[{"role": "user", "content": QUESTION}])
        chunks = list(c.chat.completions.create(model="gaji-oner", stream=True,
                                                messages=[{"role": "user", "content": QUESTION}]))
    content = plain.choices[0].message.content
    assert content.startswith("Battle of Guam [1]\n\nEvidence: ") and "Answer:" not in content
    assert streamed_text(chunks) == content
