"""The page for a Korean office, in headless Chromium: the documents panel lists a refused password-protected HWP
with its Korean reason and links each kept file's original; a citation opens its passage in its document, which
links the source file itself; a past conversation is reopened from the
conversations panel and continued. Screenshots go to docs/screenshots/ when missing or GAJI_UPDATE_SCREENSHOT=1.
Needs chromium + chromium-driver and Selenium (.ci/install-browser.sh)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from servefakes import TEST_HOSTS
from test_serve_browser import CHROMIUM, DRIVER, HAVE_SELENIUM, browser  # noqa: F401 - the fixture
from test_serve_documents import office_folder, password_hwp

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed "
                       "(apt-get install chromium chromium-driver; see .ci/install-browser.sh)"),
    pytest.mark.skipif(not HAVE_SELENIUM, reason="selenium is not installed (pip install selenium)"),
]

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTH = 900  # committed screenshots are scaled to this width (small PNGs)


def shot(d, element, name: str, tmp_path: Path) -> Path:
    """A screenshot of `element`, scaled to WIDTH; kept in docs/screenshots/ when missing or asked for."""
    from PIL import Image

    out = SHOTS / name
    if out.exists() and os.environ.get("GAJI_UPDATE_SCREENSHOT") != "1":
        out = tmp_path / name
    out.parent.mkdir(parents=True, exist_ok=True)
    d.execute_script("arguments[0].scrollIntoView({block: 'start'})", element)
    time.sleep(0.2)
    raw = tmp_path / f"raw-{name}"
    element.screenshot(str(raw))
    with Image.open(raw) as im:
        if im.width > WIDTH:
            im = im.resize((WIDTH, round(im.height * WIDTH / im.width)), Image.LANCZOS)
        im.convert("P", palette=Image.ADAPTIVE, colors=128).save(out, optimize=True)
    assert 5_000 < out.stat().st_size < 300_000, out.stat().st_size
    return out


def test_documents_citations_and_conversations(browser, live_server, tmp_path):  # noqa: F811
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from gaji.history.store import HistoryStore
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    folder = office_folder(tmp_path / "문서")
    out = tmp_path / "idx"
    build.build_index([str(folder)], out, dense=False, progress=False, korean_analyzer="bigram")
    llm = ScriptedLLM([(r"마지막 질문: 그 회의는 어디서", "다음 회의는 어디서 열리나?"),  # the follow-up's rewrite
                       (r"예산", "Answer: 270,000,000원\nSources: [1]"),
                       (r"회의", "Answer: 4월 셋째 주 목요일\nSources: [1]")],
                      default="Answer: 4월 셋째 주 목요일\nSources: [1]")
    indexes = IndexSet.from_specs([f"docs={out}"], Settings(retriever="bm25", retries=0), llm)
    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    app = create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS, default_method="oner", history=store))
    hwp = password_hwp(tmp_path / "보안문서.hwp")

    with live_server(app) as url:
        d = browser
        wait = WebDriverWait(d, 60, ignored_exceptions=(StaleElementReferenceException,))  # panels re-render

        slow = WebDriverWait(d, 240)  # a question on a loaded 2-core machine

        def texts(css: str) -> list[str]:
            return d.execute_script("return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", css)

        d.get(url + "/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#docs tr.doc"))
        assert d.execute_script("return document.documentElement.lang") == "ko"
        assert d.find_element(By.CSS_SELECTOR, "#docs-card h2").text.startswith("문서")
        # methods by their Korean names; raw options behind the advanced fold
        from selenium.webdriver.support.ui import Select

        assert Select(d.find_element(By.ID, "method")).first_selected_option.text == "한 번 검색"
        assert d.find_element(By.CSS_SELECTOR, "#options-box summary").text.startswith("고급")
        assert "참고할 문서 수" in d.find_element(By.ID, "knobs").text

        # a password-protected HWP is refused, and the documents panel says why, in Korean
        d.find_element(By.ID, "upload-input").send_keys(str(hwp))
        row = wait.until(lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, "#docs tr.doc-refused")
                                    if r.get_attribute("data-name") == "보안문서.hwp"])[0]
        assert "암호가 걸린 한글(HWP) 문서입니다" in row.text and "거부됨" in row.text
        assert "암호가 걸린 한글(HWP) 문서입니다" in d.find_element(By.ID, "upload-results").text
        names = [r.get_attribute("data-name") for r in d.find_elements(By.CSS_SELECTOR, "#docs tr.doc")]
        assert {"메모.md", "보고/사업 계획.docx", "예산.xlsx"} <= set(names)
        docx = [r for r in d.find_elements(By.CSS_SELECTOR, "#docs tr.doc") if "docx" in r.get_attribute("data-name")][0]
        assert "DOCX" in docx.text and "색인됨" in docx.text and "다시 읽기" in docx.text
        original = docx.find_element(By.CSS_SELECTOR, "a.doc-original")  # the file the index keeps
        assert original.text == "원본" and original.get_attribute("href").startswith(url + "/original/")
        assert original.get_attribute("download") == "사업 계획.docx"
        assert docx.find_element(By.CSS_SELECTOR, "a.doc-view").get_attribute("href").startswith(url + "/passage/")
        shot(d, d.find_element(By.ID, "docs-card"), "documents.png", tmp_path)

        # ask; the source opens its passage in its document, highlighted
        box = d.find_element(By.ID, "question")
        box.send_keys("다음 회의는 언제 열리나?")
        d.find_element(By.ID, "ask").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sources .open-source"))
        assert d.find_element(By.CSS_SELECTOR, "#answer .answer-text").text == "4월 셋째 주 목요일"
        link = d.find_element(By.CSS_SELECTOR, "#sources .open-source")
        assert link.text == "문서에서 보기"
        main = d.current_window_handle
        link.click()
        wait.until(lambda d: len(d.window_handles) == 2)
        d.switch_to.window([h for h in d.window_handles if h != main][0])
        cited = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".doc-chunk.cited"))[0]
        assert "/passage/" in d.current_url  # the old address led to the one, server-rendered view
        assert "4월 셋째 주 목요일" in cited.find_element(By.CSS_SELECTOR, "mark").text
        assert "메모.md" in d.find_element(By.ID, "doc-where").text
        source = d.find_element(By.ID, "original")  # the source file itself, downloaded (a PDF opens at its page)
        assert source.text.startswith("원본 파일 내려받기 (메모.md") and "/original/" in source.get_attribute("href")
        got = d.execute_script("return fetch(arguments[0]).then(r => r.text())", source.get_attribute("href"))
        assert got == (folder / "메모.md").read_text(encoding="utf-8")
        shot(d, d.find_element(By.ID, "passage-card"), "passage.png", tmp_path)
        d.close()
        d.switch_to.window(main)

        # a new conversation, then the earlier one reopened from the panel and continued
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#conversations .conv-item"))
        d.find_element(By.ID, "new-conversation").click()
        box.clear()
        box.send_keys("예산은 얼마인가?")
        d.find_element(By.ID, "ask").click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conversations .conv-item")) == 2)
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#answer .answer-text").text == "270,000,000원")
        first = [i for i in d.find_elements(By.CSS_SELECTOR, "#conversations .conv-item")
                 if "다음 회의는" in i.text][0]
        first.find_element(By.CSS_SELECTOR, ".conv-open").click()
        wait.until(lambda d: texts("#thread .bubble.q") == ["다음 회의는 언제 열리나?"])
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#answer .answer-text").text == "4월 셋째 주 목요일")
        box.clear()
        box.send_keys("그 회의는 어디서 열리나?")
        d.find_element(By.ID, "ask").click()
        slow.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#thread .turn.turn-ok")) == 2)
        shot(d, d.find_element(By.TAG_NAME, "main"), "conversations.png", tmp_path)

    convs = store.conversations()
    assert len(convs) == 2 and sorted(c.questions for c in convs) == [1, 2]
