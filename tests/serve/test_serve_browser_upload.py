"""Adding documents from the web page in headless Chromium: files picked in the file chooser and a file
dropped on the drop zone each get a line (chunks added, or refused with the reason), in Korean and English,
and what was added is in the index. The screenshot goes to docs/img/upload.png when that file is missing or
GAJI_UPDATE_SCREENSHOT=1 (otherwise to the test's tmp dir)."""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import httpx
import pytest
from test_serve_browser import browser, full_page_screenshot, pytestmark  # noqa: F401 - fixture and skips

from gaji.corpus.docgen import write_docx
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "upload.png"


@pytest.fixture
def app(tmp_path):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path / "demo-index"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")
    indexes = IndexSet.from_specs([f"demo={out}"], Settings(retriever="bm25", retries=0), ScriptedLLM(default="x"))
    return create_app(indexes, ServeConfig())


def test_picked_and_dropped_files_get_a_line_each(app, live_server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    docx = write_docx(tmp_path / "사업 계획.docx", "사업 계획", [("h1", "1. 추진 배경"),
                                                            ("p", "보라색 코끼리 사업은 2025년 봄에 시작한다.")])
    broken = tmp_path / "깨진 보고서.pdf"
    broken.write_bytes(b"%PDF-1.7 not really a pdf")
    with live_server(app) as url:
        d = browser
        wait = WebDriverWait(d, 30)
        d.get(url + "/")
        wait.until(lambda d: d.find_element(By.ID, "upload-index").text == "demo")
        card = d.find_element(By.ID, "upload-card")
        assert card.is_displayed() and "문서 추가" in card.text

        d.find_element(By.ID, "upload-input").send_keys(f"{docx}\n{broken}")
        rows = lambda d: d.find_elements(By.CSS_SELECTOR, "#upload-results .upload-row")  # noqa: E731
        wait.until(lambda d: len(rows(d)) == 2 and not d.find_elements(By.CSS_SELECTOR, ".up-sending"))
        by_name = {r.find_element(By.CSS_SELECTOR, ".up-name").text: r for r in rows(d)}
        ok, bad = by_name["사업 계획.docx"], by_name["깨진 보고서.pdf"]
        assert "up-added" in ok.get_attribute("class") and "추가됨: 조각 1개" in ok.text and "DOCX" in ok.text
        assert "up-refused" in bad.get_attribute("class") and "거부됨: 읽을 수 있는 PDF가 아닙니다" in bad.text  # the reason in Korean, from the message table

        # a drop on the zone (a DataTransfer built in the page, as a drag from the desktop delivers it)
        d.execute_script("""
            const dt = new DataTransfer();
            dt.items.add(new File(["# 메모\\n\\n분홍색 여우는 겨울에 잠을 잔다.\\n"], "메모.md", {type: "text/markdown"}));
            dt.items.add(new File(["x"], "사진.jpg", {type: "image/jpeg"}));
            document.getElementById("drop-zone").dispatchEvent(
                new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));""")
        wait.until(lambda d: len(rows(d)) == 4 and not d.find_elements(By.CSS_SELECTOR, ".up-sending"))
        by_name = {r.find_element(By.CSS_SELECTOR, ".up-name").text: r for r in rows(d)}
        assert "추가됨: 조각 1개" in by_name["메모.md"].text
        assert "거부됨: gaji가 읽는 문서 형식이 아닙니다" in by_name["사진.jpg"].text  # never sent

        d.find_element(By.ID, "lang-toggle").click()
        assert "added: 1 chunk" in by_name["메모.md"].text and "Add documents" in card.text
        d.find_element(By.ID, "lang-toggle").click()

        status = httpx.get(url + "/api/indexes/demo").json()
        assert status["chunks"] == 16 + 2

        out = SCREENSHOT if (not SCREENSHOT.exists() or os.environ.get("GAJI_UPDATE_SCREENSHOT") == "1") else (
            tmp_path / "upload.png")
        out.parent.mkdir(parents=True, exist_ok=True)
        full_page_screenshot(d, out)
        assert out.stat().st_size > 10_000
