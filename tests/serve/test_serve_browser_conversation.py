"""The conversation view in headless Chromium: a three-turn Korean conversation as a thread, the answer
streaming into its turn, each turn opening its own tree, feedback with a corrected answer, and the thread
back after a reload. The screenshot goes to docs/img/conversation.png when that file is missing or
GAJI_UPDATE_SCREENSHOT=1 (otherwise to the test's tmp dir)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_serve_browser import browser, full_page_screenshot, pytestmark  # noqa: F401 - fixture and skips

from gaji.history.store import HistoryStore
from gaji.llm.base import Request

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "conversation.png"
TURNS = [("훈민정음은 누가 만들었어?", None, "세종"),
         ("그 사람은 언제 태어났어?", "세종은 언제 태어났어?", "1397년 음력 4월 10일 한양에서 태어났습니다"),
         ("그럼 언제까지 재위했어?", "세종은 언제까지 재위했어?", "1450년까지 재위했습니다")]
REWRITES = {q: s for q, s, _ in TURNS if s}
ANSWERS = {(s or q): a for q, s, a in TURNS}


def reply(req: Request) -> str:
    last = str(req.messages[-1]["content"])
    m = re.search(r"마지막 질문: (.+)\n", last)
    if m:
        return REWRITES.get(m.group(1), m.group(1))
    q = re.search(r"질문: (.+)", last).group(1).strip()
    return ANSWERS.get(q, "모름")


@pytest.fixture
def store(tmp_path):
    s = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    yield s
    s.close()


def test_a_conversation_as_a_thread(make_app, scripted, live_server, browser, store, tmp_path):  # noqa: F811
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    llm = scripted(_extra=[(r".", reply)])
    llm.stream_delay_s = 0.3  # a visible pace, so the answer is seen arriving
    with live_server(make_app(llm, history=store)) as url:
        d = browser
        # the thread is re-rendered as events come: an element read mid-render is simply read again
        wait = WebDriverWait(d, 30, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException])
        d.get(url + "/")
        wait.until(lambda d: d.find_element(By.ID, "new-conversation"))
        assert "아래에 질문하세요" in d.find_element(By.ID, "thread").text
        for i, (q, standalone, answer) in enumerate(TURNS):
            box = d.find_element(By.ID, "question")
            box.clear()
            box.send_keys(q)
            box.send_keys(Keys.ENTER)
            if i == 1:  # the answer is seen while it is being written, before the run is over
                live = wait.until(lambda d: [x for x in d.execute_script(
                    "return [...document.querySelectorAll('.turn .live')].map(e => e.textContent)")
                    if x and x != "작성 중…"])
                assert answer.startswith(live[0].strip()) and live[0].strip() != answer
            wait.until(lambda d, n=i + 1: len(d.find_elements(By.CSS_SELECTOR, ".turn .answer-text")) == n)
            turn = d.find_elements(By.CSS_SELECTOR, "#thread .turn")[i]
            assert turn.find_element(By.CSS_SELECTOR, ".bubble.q").text == q
            shown = turn.find_element(By.CSS_SELECTOR, ".answer-text").text
            assert shown and shown in answer  # the answer's span (the sentence is its explanation)
            if standalone:
                assert turn.find_element(By.CSS_SELECTOR, ".rewrite").text == f"이렇게 이해함: {standalone}"
            else:
                assert not turn.find_elements(By.CSS_SELECTOR, ".rewrite")
        turns = d.find_elements(By.CSS_SELECTOR, "#thread .turn")
        # feedback on the second answer, with the answer that would have been right
        turns[1].find_element(By.CSS_SELECTOR, ".fb-correct").click()
        field = turns[1].find_element(By.CSS_SELECTOR, ".correct-form input")
        field.send_keys("1397년 5월 15일")
        turns[1].find_element(By.CSS_SELECTOR, ".fb-save").click()
        wait.until(lambda d: "의견을 저장했습니다" in d.find_elements(By.CSS_SELECTOR, "#thread .turn")[1].text)
        # the first turn opens its own tree (its question at the root, no rewrite)
        d.find_elements(By.CSS_SELECTOR, "#thread .turn")[0].find_element(By.CSS_SELECTOR, ".show-tree").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#tree .node.root .node-q").text == TURNS[0][0])
        assert d.find_element(By.CSS_SELECTOR, "#answer .answer-text").text == "세종"
        # the third turn's tree has the rewrite first under the root
        d.find_elements(By.CSS_SELECTOR, "#thread .turn")[2].find_element(By.CSS_SELECTOR, ".show-tree").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#tree .node.root .node-q").text == TURNS[2][1])
        rewrite = d.find_element(By.CSS_SELECTOR, "#tree .node.kind-rewrite")
        # headed by the follow-up as asked (its input), the standalone question on a line of its own, no "template"
        assert rewrite.find_element(By.CSS_SELECTOR, ".node-q").text == TURNS[2][0]
        lines = [[s.text for s in x.find_elements(By.CSS_SELECTOR, "span")]
                 for x in rewrite.find_elements(By.CSS_SELECTOR, ".node-line")]
        assert lines == [["다시 쓴 질문", TURNS[2][1]]], lines
        assert not rewrite.find_elements(By.CSS_SELECTOR, ".node-line.template")
        d.execute_script("window.scrollTo(0, 0)")
        out = SCREENSHOT if (not SCREENSHOT.exists() or os.environ.get("GAJI_UPDATE_SCREENSHOT") == "1") else (
            tmp_path / "conversation.png")
        out.parent.mkdir(parents=True, exist_ok=True)
        full_page_screenshot(d, out)
        assert out.stat().st_size > 10_000

        # a reload shows the same thread, from the server's history
        d.refresh()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#thread .turn .answer-text")) == 3)
        again = d.find_elements(By.CSS_SELECTOR, "#thread .turn")
        assert [t.find_element(By.CSS_SELECTOR, ".bubble.q").text for t in again] == [q for q, _, _ in TURNS]
        assert "chosen" in again[1].find_element(By.CSS_SELECTOR, ".fb-down").get_attribute("class")
        # a new conversation starts empty, and its first question is not read as a follow-up
        d.find_element(By.ID, "new-conversation").click()
        assert not d.find_elements(By.CSS_SELECTOR, "#thread .turn")
    fb = store.questions(limit=0, oldest_first=True)[1].feedback
    assert (fb.rating, fb.correct_answer) == ("down", "1397년 5월 15일")
    assert len({r.conversation_id for r in store.questions(limit=0)}) == 1
