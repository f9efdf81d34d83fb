"""The documents panel's API (gaji.serve.documents): an index's files with their format, pages or rows, chunks and
status, refused files with their reason as a table message (Korean on a Korean page), removal, re-sync from the
folder, and a cited passage in its document. Also the conversations list and stopped nodes."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gaji.corpus.docgen import lock_hwp, write_docx, write_xlsx
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.messages import Msg
from gaji.serve.documents import file_of
from servefakes import TEST_HOSTS

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip

HWP_FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "formats" / "fixtures" / "gaji_report.hwp"


def password_hwp(dst: Path) -> Path:
    return lock_hwp(HWP_FIXTURE, dst)


def office_folder(root: Path) -> Path:
    root.mkdir()
    (root / "메모.md").write_text("# 회의 메모\n\n다음 회의는 4월 셋째 주 목요일에 연다.\n", encoding="utf-8")
    (root / "보고").mkdir()
    write_docx(root / "보고" / "사업 계획.docx", "사업 계획", [("h1", "1. 추진 배경"), ("p", "보라색 코끼리 사업은 2025년 봄에 시작한다."),
                                                    ("h1", "2. 예산"), ("p", "예산은 270,000,000원이다.")])
    write_xlsx(root / "예산.xlsx", {"부서별": [["부서", "예산"], ["모바일사업부", "48억 원"], ["등대사업부", "77억 원"]]})
    return root


@pytest.fixture
def served(tmp_path):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    folder = office_folder(tmp_path / "문서")
    out = tmp_path / "idx"
    build.build_index([str(folder)], out, dense=False, progress=False, korean_analyzer="bigram")
    llm = ScriptedLLM(default="Answer: 4월 셋째 주 목요일\nSources: [1]")
    indexes = IndexSet.from_specs([f"docs={out}"], Settings(retriever="bm25", retries=0), llm)
    with TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS))) as c:
        yield c, folder, out


def rows_of(client) -> dict[str, dict]:
    r = client.get("/api/indexes/docs/documents")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total"] == len(body["documents"])
    return {d["name"]: d for d in body["documents"]}


def test_files_are_rows_with_their_format_size_and_chunks(served):
    client, _, _ = served
    rows = rows_of(client)
    assert set(rows) == {"메모.md", "보고/사업 계획.docx", "예산.xlsx"}
    docx = rows["보고/사업 계획.docx"]
    assert docx["format"] == "DOCX" and docx["status"] == "indexed" and docx["chunks"] >= 1
    assert docx["units"].get("sections", 0) >= 1 and len(docx["documents"]) >= 1
    assert rows["예산.xlsx"]["format"] == "XLSX" and rows["예산.xlsx"]["units"] == {"rows": 3}
    assert rows["메모.md"]["can_sync"] and rows["메모.md"]["origin"] == "folder" and rows["메모.md"]["updated"]
    assert "/" not in "".join(str(v) for d in rows.values() for k, v in d.items() if k in ("reason", "origin"))


def test_a_refused_upload_is_listed_with_its_reason_in_korean_and_english(served, tmp_path):
    import base64

    client, _, _ = served
    hwp = password_hwp(tmp_path / "암호.hwp")
    body = {"files": [{"name": "암호.hwp", "content_base64": base64.b64encode(hwp.read_bytes()).decode()}]}
    r = client.post("/api/indexes/docs/files", json=body)
    assert r.status_code == 422
    sent = r.json()["files"][0]
    assert sent["reason_msg"]["id"] == "read.hwp_password"
    rows = rows_of(client)
    row = rows["암호.hwp"]
    assert row["status"] == "refused" and row["format"] == "HWP 5" and "password-protected HWP" in row["reason"]
    msg = Msg.from_dict(row["reason_msg"])
    assert msg is not None and msg.text("ko").startswith("암호가 걸린 한글(HWP) 문서입니다")
    assert list(rows)[0] == "암호.hwp"  # refused files come first

    # the same name read well later is refused no more
    (tmp_path / "ok.md").write_text("# 암호\n\n이제 읽힌다.\n", encoding="utf-8")
    body = {"files": [{"name": "암호.hwp", "content_base64": base64.b64encode(HWP_FIXTURE.read_bytes()).decode()}]}
    assert client.post("/api/indexes/docs/files", json=body).status_code == 200
    assert rows_of(client)["암호.hwp"]["status"] == "indexed"


def test_remove_and_resync_from_the_folder(served):
    client, folder, _ = served
    docx = rows_of(client)["보고/사업 계획.docx"]
    r = client.delete("/api/indexes/docs/documents", params=[("id", d) for d in docx["documents"]])
    assert r.status_code == 200, r.text
    assert "보고/사업 계획.docx" not in rows_of(client)

    (folder / "메모.md").write_text("# 회의 메모\n\n다음 회의는 5월 첫째 주 월요일에 연다.\n", encoding="utf-8")
    r = client.post("/api/indexes/docs/sync", json={"file": "메모.md"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["changed"] == ["메모.md"]
    assert body["added"] == ["보고/사업 계획.docx"] or body["added"][0].startswith("보고/사업 계획.docx")  # the folder is synced
    assert rows_of(client)["보고/사업 계획.docx"]["status"] == "indexed"

    r = client.post("/api/indexes/docs/sync", json={"file": "없는.md"})
    assert r.status_code == 400 and "cannot be read again" in r.json()["error"]
    assert Msg.from_dict(r.json()["msg"]).text("ko").startswith("없는.md의 원본 파일을 찾을 수 없습니다")
    assert client.post("/api/indexes/docs/sync", json={"file": "메모.md", "x": 1}).status_code == 400


def test_a_file_gone_from_the_folder_cannot_be_read_again(served):
    client, folder, _ = served
    shutil.rmtree(folder)
    rows = rows_of(client)
    assert not rows["메모.md"]["can_sync"]
    assert client.post("/api/indexes/docs/sync", json={"file": "메모.md"}).status_code == 400


def test_a_cited_passage_in_its_document(served):
    client, _, _ = served
    docx = rows_of(client)["보고/사업 계획.docx"]
    r = client.post("/api/ask", json={"question": "예산은 얼마인가?", "method": "oner", "options": {"k": 3}})
    assert r.status_code == 200
    chunk = client.get("/api/indexes/docs/passage", params={"id": f"{docx['documents'][-1]}::0"})
    if chunk.status_code == 404:  # chunk ids follow the chunker: take one from the search instead
        hits = r.json()["trace"]["passages"]
        pid = next(iter(hits))
        chunk = client.get("/api/indexes/docs/passage", params={"id": pid})
    assert chunk.status_code == 200, chunk.text
    body = chunk.json()
    assert body["id"] in [c["id"] for c in body["chunks"]] and body["original"]["kept"] is True
    assert body["file"] == file_of(body["doc_id"]) and body["url"].startswith("/passage/")
    assert client.get(body["url"]).status_code == 200 and client.get(body["original_url"]).status_code == 200
    assert client.get("/api/indexes/docs/passage", params={"id": "no-such"}).status_code == 404
    page = client.get("/passage")
    assert page.status_code == 200 and "passage.js" in page.text
    script = client.get("/messages.js")
    assert script.status_code == 200 and "암호가 걸린 한글(HWP) 문서입니다" in script.text


def test_file_of():
    assert file_of("보고서.pdf#page3") == "보고서.pdf"
    assert file_of("a/b.docx#sec2") == "a/b.docx"
    assert file_of("hotpot#12") == "hotpot#12"
    assert file_of("plain") == "plain"


def test_conversations_are_listed_newest_first(make_app, scripted, tmp_path):
    from gaji.history.store import HistoryStore

    store = HistoryStore.open(str(tmp_path / "h.sqlite3"))
    with TestClient(make_app(llm=scripted(), history=store)) as client:
        assert client.get("/api/conversations").json() == {"conversations": []}
        first = client.post("/api/ask", json={"question": "훈민정음은 누가 만들었나?"}).json()
        client.post("/api/ask", json={"question": "언제 반포했나?", "conversation_id": first["conversation_id"]})
        second = client.post("/api/ask", json={"question": "Which battle came first?"}).json()
        convs = client.get("/api/conversations").json()["conversations"]
        assert [c["id"] for c in convs] == [second["conversation_id"], first["conversation_id"]]
        assert convs[1]["questions"] == 2 and convs[1]["title"] == "훈민정음은 누가 만들었나?"
        assert client.get("/api/conversations?limit=0").status_code == 400


def test_without_history_the_list_says_so(make_app):
    with TestClient(make_app()) as client:
        r = client.get("/api/conversations")
        assert r.status_code == 400 and "history" in r.json()["error"]
        assert Msg.from_dict(r.json()["msg"]).text("ko") == "이 서버는 대화를 저장하지 않습니다 (gaji serve --history-db)"


def test_a_finished_run_leaves_no_node_running():
    from gaji.serve.service import stop_unfinished
    from gaji.types import Node

    root = Node(question="q")
    a = root.add(Node(question="a"))
    a.status = "running"
    b = a.add(Node(question="b"))
    b.status = "running"
    root.add(Node(question="c")).status = "failed"
    assert stop_unfinished(root) == 2
    assert (a.status, b.status, root.children[1].status, root.status) == ("stopped", "stopped", "failed", "ok")
