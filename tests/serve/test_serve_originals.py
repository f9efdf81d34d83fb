"""The original files behind citations (gaji/serve/routes/passage.py, gaji/serve/originals.py) and the one passage
view: signed links only (no path in them), the right content type, the Korean file name RFC 5987-encoded, a PDF
opened at its page and other formats downloaded, the file gone with its document, a --no-originals index serving
the source only while unchanged, the old /passage?index=&id= address redirected, and scoped keys applied."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from gaji.config import Settings
from gaji.corpus.docgen import write_docx, write_pdf
from gaji.history.keys import KeyStore, Scopes
from gaji.history.store import HistoryStore
from gaji.index import build
from gaji.index.store import open_index
from gaji.llm.scripted import ScriptedLLM
from gaji.serve.passage_links import secret_for, sign, sign_original
from servefakes import TEST_HOSTS

PDF = "안전점검_보고서.pdf"


def _folder(root: Path) -> Path:
    root.mkdir()
    write_pdf(root / PDF, [["점검 개요: 본관과 별관을 점검했다."], ["소화기 12대를 교체했다."], ["비상구 표시등 3개를 고쳤다."]])
    write_docx(root / "예산 계획.docx", "예산", [("h1", "1. 예산"), ("p", "등대사업부 예산은 77억 원이다.")])
    (root / "안내.html").write_text("<html><body><h1>안내</h1><p>정문은 9시에 연다.</p>"
                                  "<script>alert(1)</script></body></html>", encoding="utf-8")
    return root


def _app(out: Path, history=None, api_key=None):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    llm = ScriptedLLM(default="Answer: 12대\nSources: [1]")
    indexes = IndexSet.from_specs([f"docs={out}"], Settings(retriever="bm25", retries=0), llm)
    return create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS, history=history, api_key=api_key))


def _build(tmp_path, **kw) -> tuple[Path, Path]:
    folder = _folder(tmp_path / "문서")
    out = tmp_path / "idx"
    build.build_index([str(folder)], out, dense=False, progress=False, korean_analyzer="bigram", **kw)
    return folder, out


def _chunk_of(out: Path, doc_id: str) -> str:
    return next(c.id for c in open_index(out).iter_chunks() if c.doc_id == doc_id)


@pytest.fixture
def served(tmp_path):
    folder, out = _build(tmp_path)
    with TestClient(_app(out)) as c:
        yield c, folder, out


def _rows(client, **headers) -> dict[str, dict]:
    r = client.get("/api/indexes/docs/documents", headers=headers)
    assert r.status_code == 200, r.text
    return {d["name"]: d for d in r.json()["documents"]}


def test_the_documents_list_links_each_kept_original_with_its_korean_name(served):
    client, folder, _ = served
    rows = _rows(client)
    assert {r["original"] for r in rows.values()} == {"kept"}
    pdf = client.get(rows[PDF]["original_url"])
    assert pdf.status_code == 200 and pdf.content == (folder / PDF).read_bytes()
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"] == (f"inline; filename=\"{'_' * 8}.pdf\"; "
                                                  f"filename*=UTF-8''{quote(PDF)}")
    assert "%EC%95%88%EC%A0%84" in pdf.headers["content-disposition"]  # 안전, UTF-8 percent-encoded
    docx = client.get(rows["예산 계획.docx"]["original_url"])
    assert docx.status_code == 200 and docx.headers["content-type"].endswith("wordprocessingml.document")
    assert docx.headers["content-disposition"].startswith("attachment;")
    assert "filename*=UTF-8''%EC%98%88%EC%82%B0%20%EA%B3%84%ED%9A%8D.docx" in docx.headers["content-disposition"]
    page = client.get(rows["예산 계획.docx"]["view_url"])
    assert page.status_code == 200 and "77억" in page.text and 'id="passage"' in page.text
    config = client.get("/api/indexes/docs").json()["config"]  # the copies count in the index's size
    assert config["originals"]["files"] == 3 and config["size_bytes"] > config["originals"]["bytes"] > 0


def test_an_html_original_is_a_download_under_a_policy_that_runs_nothing(served):
    client, _, _ = served
    r = client.get(_rows(client)["안내.html"]["original_url"])
    assert r.status_code == 200 and b"<script>" in r.content
    assert r.headers["content-disposition"].startswith("attachment;")
    assert r.headers["content-security-policy"].startswith("default-src 'none'")
    assert r.headers["x-content-type-options"] == "nosniff"


def test_the_passage_view_links_a_pdf_at_its_page(served):
    client, _, out = served
    pid = _chunk_of(out, f"{PDF}#page2")
    body = client.get("/api/indexes/docs/passage", params={"id": pid}).json()
    assert body["original"]["kept"] and body["original_url"].endswith("#page=2")
    view = client.get(body["url"], params={"hl": "12대"})
    assert view.status_code == 200
    assert '<mark class="hl-ans">12대</mark>' in view.text and "2쪽" in view.text
    assert f'href="{body["original_url"]}"' in view.text and "원본 PDF를 2쪽에서 열기" in view.text
    english = client.get(body["url"], params={"lang": "en"})
    assert "Open the original PDF at page 2" in english.text
    assert client.get(body["original_url"].split("#")[0]).status_code == 200


def test_the_old_address_opens_the_one_view(served):
    client, _, out = served
    pid = _chunk_of(out, f"{PDF}#page3")
    r = client.get("/passage", params={"index": "docs", "id": pid, "hl": "3개", "lang": "en"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"].startswith("/passage/") and "lang=en" in r.headers["location"]
    view = client.get(r.headers["location"])
    assert view.status_code == 200 and '<mark class="hl-ans">3개</mark>' in view.text
    assert "Open the original PDF at page 3" in view.text
    assert client.get("/passage").status_code == 200  # no query: the small page (it says what it opens)


def test_links_are_signed_and_name_no_path(served):
    client, _, _ = served
    secret = client.app.state.link_secret
    forged = sign_original(secret_for("another server"), "docs", PDF)
    passage_token = sign(secret, "docs", PDF)  # a passage token never opens a file
    for url in (f"/original/{forged}", f"/original/{passage_token}", "/original/..%2F..%2Fetc%2Fpasswd",
                "/original/x.y"):
        assert client.get(url).status_code == 404, url
    unknown = client.get(f"/original/{sign_original(secret, 'docs', '../../etc/passwd')}")
    assert unknown.status_code == 404 and "root:" not in unknown.text


def test_a_removed_document_takes_its_original_along(served):
    client, _, out = served
    row = _rows(client)["예산 계획.docx"]
    r = client.request("DELETE", "/api/indexes/docs/documents", params={"id": row["documents"]})
    assert r.status_code == 200, r.text
    assert client.get(row["original_url"]).status_code == 404
    assert len([p for p in (out / "originals").rglob("*") if p.is_file()]) == 2  # the PDF and the HTML file


def test_without_originals_the_source_is_served_only_while_unchanged(tmp_path):
    folder, out = _build(tmp_path, originals=False)
    assert not (out / "originals").exists()
    with TestClient(_app(out)) as client:
        row = _rows(client)[PDF]
        assert row["original"] == "source"
        assert client.get(row["original_url"]).content == (folder / PDF).read_bytes()
        pid = _chunk_of(out, f"{PDF}#page1")
        view = client.get(client.get("/api/indexes/docs/passage", params={"id": pid}).json()["url"])
        assert "읽었던 자리의 파일" in view.text
        write_pdf(folder / PDF, [["바뀐 내용"]])  # edited since it was indexed: not the file the index read
        assert client.get(row["original_url"]).status_code == 404
        view = client.get(client.get("/api/indexes/docs/passage", params={"id": pid}).json()["url"])
        assert "원본 파일을 열 수 없습니다" in view.text and "/original/" not in view.text


def test_scoped_keys_apply_to_the_view_and_the_files(tmp_path):
    _, out = _build(tmp_path)
    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    keys = KeyStore(store.db)
    reader = keys.add("webui", Scopes.of(read=["docs"]))[1]
    stranger = keys.add("elsewhere", Scopes.of(read=["other"]))[1]
    with TestClient(_app(out, history=store)) as client:
        assert client.get("/api/indexes/docs/documents", headers={"X-API-Key": stranger}).status_code == 403
        pid = _chunk_of(out, f"{PDF}#page2")
        assert client.get("/api/indexes/docs/passage", params={"id": pid},
                          headers={"X-API-Key": stranger}).status_code == 403
        row = _rows(client, **{"X-API-Key": reader})[PDF]
        body = client.get("/api/indexes/docs/passage", params={"id": pid}, headers={"X-API-Key": reader}).json()
        # the links open in a browser without the key: the key they were made for is checked
        assert client.get(row["original_url"]).status_code == 200 and client.get(body["url"]).status_code == 200
        old = client.get("/passage", params={"index": "docs", "id": pid}, follow_redirects=False)
        assert old.status_code == 200 and "passage.js" in old.text  # a keyed server hands out no link unasked
        keys.set_scopes("webui", Scopes.of(read=["other"]))  # the key loses read on docs: its links stop
        assert client.get(row["original_url"]).status_code == 403
        assert client.get(body["url"]).status_code == 403
        assert client.get(body["original_url"].split("#")[0]).status_code == 403


def test_an_uploaded_file_is_kept_as_its_documents_original(served):
    import base64

    client, _, _ = served
    data = "# 회의록\n\n다음 회의는 5월 둘째 주 화요일이다.\n".encode()
    r = client.post("/api/indexes/docs/files",
                    json={"files": [{"name": "회의록.md", "content_base64": base64.b64encode(data).decode()}]})
    assert r.status_code == 200, r.text
    row = _rows(client)["회의록.md"]
    assert row["origin"] == "upload" and row["original"] == "kept" and not row["can_sync"]
    got = client.get(row["original_url"])
    assert got.content == data and got.headers["content-type"] == "text/markdown; charset=utf-8"
    assert got.headers["content-disposition"].startswith("attachment;")
