"""End to end in headless Chromium: type a Korean question, watch the tree stream in, read the answer.

Needs the Debian packages chromium + chromium-driver and Selenium (`.ci/install-browser.sh`).
The screenshot goes to docs/img/web.png when that file is missing or GAJI_UPDATE_SCREENSHOT=1
(otherwise to the test's tmp dir, so test runs do not keep rewriting a tracked file).
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed "
                       "(apt-get install chromium chromium-driver; see .ci/install-browser.sh)"),
    pytest.mark.skipif(not HAVE_SELENIUM, reason="selenium is not installed (pip install selenium)"),
]

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "web.png"
QUESTION = "훈민정음은 언제 반포되었나?"


@pytest.fixture
def browser(tmp_path, monkeypatch):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must not try to download anything
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
              f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1200", "--lang=ko-KR",
              "--hide-scrollbars", "--force-device-scale-factor=1"):
        opts.add_argument(a)
    opts.add_experimental_option("prefs", {"intl.accept_languages": "ko-KR,ko"})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def test_korean_question_renders_tree_and_answer(make_app, live_server, scripted, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def paced(reply):  # a little model time per call, so the tree visibly streams in
        def f(_req):
            time.sleep(0.15)
            return reply
        return f

    llm = scripted(**{p: paced(r) for p, r in [
        (r"DECOMPOSE: 훈민정음", "훈민정음은 누가 창제했나? | #1은 언제 반포했나?"),
        (r"SUBQ: 훈민정음은 누가", "세종"), (r"SUBQ: .*반포", "1446년"), (r"COMBINE: 훈민", "1446년 [1, 3]")]})
    with live_server(make_app(llm)) as url:
        d = browser
        wait = WebDriverWait(d, 20)
        d.get(url + "/")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "method")).options) > 1)
        assert d.execute_script("return document.documentElement.lang") == "ko"
        assert d.find_element(By.ID, "ask").text == "질문하기"
        Select(d.find_element(By.ID, "method")).select_by_value("test_tree")

        box = d.find_element(By.ID, "question")
        box.send_keys(QUESTION)
        # Enter while an IME is composing a syllable must not submit
        d.execute_script("arguments[0].dispatchEvent(new KeyboardEvent('keydown', "
                         "{key: 'Enter', isComposing: true, bubbles: true, cancelable: true}))", box)
        time.sleep(0.2)
        assert "hidden" in d.find_element(By.ID, "answer-card").get_attribute("class")
        box.send_keys(Keys.ENTER)

        # the tree streams in before the answer is there
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#tree .node.root .node-children .node")))
        wait.until(EC.text_to_be_present_in_element((By.ID, "run-status"), "완료"))
        assert d.find_element(By.CSS_SELECTOR, "#answer .answer-text").text == "1446년"
        subs = d.find_elements(By.CSS_SELECTOR, "#tree .node.root > .node-children > .node")
        assert [s.find_element(By.CSS_SELECTOR, ".node-answer").text.strip("→ ") for s in subs] == ["세종", "1446년"]
        assert "[ANS_1]" in subs[1].find_element(By.CSS_SELECTOR, ".template").text
        assert "답할 수 있음" in subs[0].text  # score names from the message table (score.answerability)
        assert "NaN" not in d.find_element(By.ID, "tree").text  # a passage's score in this node's search
        verdict = subs[0].find_element(By.CSS_SELECTOR, ".fact.tone-decision").text  # as the method describes it
        assert "검증" in verdict and "needed — scripted check · 주제 코사인 0.91" in verdict
        assert d.find_elements(By.CSS_SELECTOR, "#cost .stat")
        assert d.find_element(By.ID, "question").get_attribute("value") == QUESTION

        # a citation opens and highlights its passage in the tree
        d.find_element(By.CSS_SELECTOR, "#answer .cite").click()
        flashed = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".passage.flash"))
        assert flashed[0].get_attribute("data-pid") == "ko-hunmin" and flashed[0].is_displayed()
        assert flashed[0].find_elements(By.CSS_SELECTOR, "mark")  # the answer span is highlighted
        d.execute_script("document.querySelectorAll('.passage.flash').forEach(e => e.classList.remove('flash'));"
                         "window.scrollTo(0, 0)")

        # language toggle
        d.find_element(By.ID, "lang-toggle").click()
        assert d.find_element(By.ID, "ask").text == "Ask"
        d.find_element(By.ID, "lang-toggle").click()

        out = SCREENSHOT if (not SCREENSHOT.exists() or os.environ.get("GAJI_UPDATE_SCREENSHOT") == "1") else (
            tmp_path / "web.png")
        out.parent.mkdir(parents=True, exist_ok=True)
        full_page_screenshot(d, out)
        assert out.stat().st_size > 10_000


def full_page_screenshot(d, out: Path) -> None:
    """The whole page, not just the viewport (Chrome DevTools), scrolled to the top."""
    import base64

    d.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    time.sleep(0.3)
    height = min(int(d.execute_script("return document.documentElement.scrollHeight")), 4000)
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}})
    out.write_bytes(base64.b64decode(shot["data"]))
