"""Document files sent to the server (gaji.serve.uploads, POST /api/indexes/{name}/files): Korean DOCX, PDF,
XLSX and HWPX read by the format registry, found by a phrase and cited by place; refused files named with
their reason; a file sent again replaces what it had; size limits, file names and the content type."""
from __future__ import annotations

import base64
import json
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gaji.corpus.docgen import write_docx, write_hwpx, write_pdf, write_xlsx
from gaji.config import Settings
from gaji.llm.scripted import ScriptedLLM
from gaji.serve.limits import base64_size, files_body_limit
from gaji.serve.uploads import MAX_NAME_BYTES, check_name, decode_files
from servefakes import TEST_HOSTS

from gaji.index import build  # noqa: E402 - a core module: an import error must fail, not skip

HWP_FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "formats" / "fixtures" / "gaji_report.hwp"


def serve(tmp_path: Path, **config):
    from gaji.serve.app import ServeConfig, create_app
    from gaji.serve.indexes import IndexSet

    out = tmp_path / "demo-index"
    with resources.as_file(resources.files("gaji") / "data" / "demo_corpus.jsonl") as corpus:
        build.build_index([str(corpus)], out, dense=False, progress=False, korean_analyzer="bigram")
    llm = ScriptedLLM(default="Answer: 근거\nSources: [1]")
    indexes = IndexSet.from_specs([f"demo={out}"], Settings(retriever="bm25", retries=0), llm)
    return TestClient(create_app(indexes, ServeConfig(allowed_hosts=TEST_HOSTS, **config)))


@pytest.fixture
def client(tmp_path):
    with serve(tmp_path) as c:
        yield c


@pytest.fixture
def font(korean_font) -> str:  # tests/conftest.py: skips without a Korean TTF
    return korean_font


def b64(data: bytes | Path) -> str:
    return base64.b64encode(data.read_bytes() if isinstance(data, Path) else data).decode("ascii")


def post_files(client, files: dict[str, bytes | Path], **kw):
    body = {"files": [{"name": n, "content_base64": b64(d)} for n, d in files.items()]}
    return client.post("/api/indexes/demo/files", json=body, **kw)


def cited(client, question: str) -> dict:
    r = client.post("/api/ask", json={"question": question, "method": "oner", "options": {"k": 1}})
    assert r.status_code == 200, r.text
    assert r.json()["citations"], r.json()
    return r.json()["citations"][0]


def office_files(tmp_path: Path, font: str) -> dict[str, Path]:
    return {
        "보고서.pdf": write_pdf(tmp_path / "p.pdf", [["첫째 쪽: 개요이다."], ["둘째 쪽: 청록색 펭귄 관측소는 제주에 있다."]],
                             font=font),
        "사업 계획.docx": write_docx(tmp_path / "d.docx", "사업 계획", [("h1", "1. 추진 배경"),
                                                                ("p", "보라색 코끼리 사업은 2025년 봄에 시작한다.")]),
        "예산.xlsx": write_xlsx(tmp_path / "x.xlsx", {"부서별": [["부서", "예산"], ["모바일사업부", "48억 원"],
                                                            ["등대사업부", "77억 원"]]}),
        "계획.hwpx": write_hwpx(tmp_path / "h.hwpx", "관측 계획", [("h1", "1. 개요"),
                                                              ("p", "한라산 은하수 관측은 해발 1,950미터에서 한다.")]),
    }


def test_korean_office_files_are_indexed_found_and_cited_by_place(client, tmp_path, font):
    r = post_files(client, office_files(tmp_path, font))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["added"] == 4 and body["refused"] == 0
    by_name = {f["name"]: f for f in body["files"]}
    assert by_name["보고서.pdf"]["documents"] == ["보고서.pdf#page1", "보고서.pdf#page2"]
    assert by_name["보고서.pdf"]["format"] == "PDF" and by_name["예산.xlsx"]["format"] == "XLSX"
    assert all(f["status"] == "added" and f["chunks"] >= 1 and f["reason"] == "" for f in body["files"])
    assert body["chunks"]["added"] == sum(f["chunks"] for f in body["files"])
    assert body["status"]["chunks"] == 16 + body["chunks"]["added"]

    pdf = cited(client, "청록색 펭귄 관측소는 어디에 있나?")
    assert pdf["doc_id"] == "보고서.pdf#page2"
    assert pdf["location"]["file"] == "보고서.pdf" and pdf["location"]["page"] == 2
    docx = cited(client, "보라색 코끼리 사업은 언제 시작하나?")
    assert docx["location"]["file"] == "사업 계획.docx" and docx["location"]["section"] == ["1. 추진 배경"]
    xlsx = cited(client, "등대사업부 예산")
    assert xlsx["location"]["file"] == "예산.xlsx" and xlsx["location"]["sheet"] == "부서별"
    assert "부서: 등대사업부" in xlsx["text"]
    hwpx = cited(client, "한라산 은하수 관측 해발")
    assert hwpx["location"]["file"] == "계획.hwpx" and "1,950미터" in hwpx["text"]


def test_a_real_hwp_file_and_a_half_scanned_pdf(client, tmp_path, font):
    half = write_pdf(tmp_path / "half.pdf", [["첫 쪽에는 글자가 있다: 자주색 두루미."], []], font=font, image_pages=[2])
    r = post_files(client, {"보고서.hwp": HWP_FIXTURE, "반쯤 스캔.pdf": half})
    assert r.status_code == 200, r.text
    hwp, pdf = r.json()["files"]
    assert hwp["status"] == "added" and hwp["format"] == "HWP 5" and "보고서.hwp#sec2" in hwp["documents"]
    assert pdf["documents"] == ["반쯤 스캔.pdf#page1"]
    assert pdf["notices"] and "p. 2" in pdf["notices"][0] and pdf["notices"][0].startswith("반쯤 스캔.pdf: ")
    assert not any("/tmp" in n or "gaji-upload" in n for n in pdf["notices"])
    shifts = cited(client, "야간조 근무 시간 21:00~06:00 인원 18명")
    assert shifts["location"]["file"] == "보고서.hwp" and shifts["location"]["section"][0] == "2. 근무 체계"


def test_a_file_sent_again_replaces_every_document_it_had(client, tmp_path, font):
    three = write_pdf(tmp_path / "3.pdf", [["하나."], ["둘."], ["셋째 쪽: 주황색 고래 보고."]], font=font)
    assert post_files(client, {"회의록.pdf": three}).json()["files"][0]["documents"][-1] == "회의록.pdf#page3"
    one = write_pdf(tmp_path / "1.pdf", [["새 판: 남색 거북 보고만 남았다."]], font=font)
    r = post_files(client, {"회의록.pdf": one})
    assert r.status_code == 200 and r.json()["files"][0]["documents"] == ["회의록.pdf#page1"]
    assert r.json()["chunks"]["removed"] == 2 and r.json()["chunks"]["replaced"] == 1
    assert r.json()["status"]["chunks"] == 16 + 1
    r = client.post("/api/ask", json={"question": "주황색 고래", "method": "oner", "options": {"k": 3}})
    assert "회의록.pdf#page3" not in {p["doc_id"] for p in r.json()["trace"]["passages"].values()}
    assert cited(client, "남색 거북")["doc_id"] == "회의록.pdf#page1"


def test_unreadable_files_are_refused_with_their_reason_and_the_rest_is_added(client, tmp_path, font):
    files = {
        "좋은 메모.md": "# 메모\n\n분홍색 여우는 겨울에 잠을 잔다.\n".encode(),
        "깨진.docx": b"PK\x03\x04 this is not a whole zip",
        "글자.pdf": "PDF라고 하지만 그냥 글자다.".encode(),   # the extension says PDF, the content is text
        "프로그램.exe": b"MZ\x90\x00",
        "빈.txt": b"",
        "스캔.pdf": write_pdf(tmp_path / "scan.pdf", [[]], font=font, image_pages=[1]),
        "../../etc/passwd.txt": b"root:x:0:0",
        "..\\windows.txt": b"x",
        ".hidden.txt": b"x",
        "이름\n줄바꿈.txt": b"x",
        "가" * (MAX_NAME_BYTES // 3 + 1) + ".txt": b"x",
    }
    r = post_files(client, files)
    assert r.status_code == 200, r.text
    body = r.json()
    res = {f["name"]: f for f in body["files"]}
    assert body["added"] == 1 and body["refused"] == len(files) - 1
    assert res["좋은 메모.md"]["status"] == "added" and res["좋은 메모.md"]["documents"] == ["좋은 메모.md"]
    reasons = {n: f["reason"] for n, f in res.items() if f["status"] == "refused"}
    assert "damaged zip" in reasons["깨진.docx"]
    assert "content is plain text" in reasons["글자.pdf"]
    assert ".exe is not a document type" in reasons["프로그램.exe"]
    assert "empty" in reasons["빈.txt"]
    assert "no text" in reasons["스캔.pdf"] and "scan" in reasons["스캔.pdf"].lower()
    assert "folder" in reasons["../../etc/passwd.txt"] and "folder" in reasons["..\\windows.txt"]
    assert "starts with '.'" in reasons[".hidden.txt"] and "control character" in reasons["이름\n줄바꿈.txt"]
    assert any("longer than" in v for v in reasons.values())
    assert all("/tmp" not in v and "gaji-upload" not in v for v in reasons.values())
    assert cited(client, "분홍색 여우")["location"]["file"] == "좋은 메모.md"
    ids = {i for f in body["files"] for i in f["documents"]}
    assert ids == {"좋은 메모.md"}


def test_no_readable_file_is_422_with_every_reason(client):
    r = post_files(client, {"a.hwp": b"not an hwp file at all", "b.pptx": b""})
    assert r.status_code == 422
    body = r.json()
    assert body["error"].startswith("no file could be read: a.hwp: ") and "b.pptx: empty file" in body["error"]
    assert [f["status"] for f in body["files"]] == ["refused", "refused"]
    assert client.get("/api/indexes/demo").json()["chunks"] == 16


def test_bad_base64_and_a_name_sent_twice_are_refused_per_file(client):
    body = {"files": [{"name": "a.txt", "content_base64": "not base64!"},
                      {"name": "b.txt", "content_base64": b64("노란 참새.".encode())},
                      {"name": "b.txt", "content_base64": b64("또 노란 참새.".encode())}]}
    r = client.post("/api/indexes/demo/files", json=body)
    assert r.status_code == 200
    f = r.json()["files"]
    assert "not valid base64" in f[0]["reason"] and f[1]["status"] == "added" and "twice" in f[2]["reason"]


def test_the_decoded_files_are_held_to_the_upload_limit(tmp_path):
    with serve(tmp_path, max_upload_bytes=1000) as c:
        r = post_files(c, {"a.txt": b"x" * 600, "b.txt": b"y" * 600})  # under the body limit, over in files
        assert r.status_code == 413 and "more than this server takes" in r.json()["error"]
        assert "1000 bytes" in r.json()["error"]
        r = post_files(c, {"a.txt": b"x" * 400_000})  # the body itself is over its limit
        assert r.status_code == 413 and "files may be 1000 bytes together" in r.json()["error"]
        assert post_files(c, {"a.txt": "작은 파일이다.".encode()}).status_code == 200
        assert c.get("/api/indexes/demo").json()["chunks"] == 17


def test_the_body_limit_leaves_room_for_base64():
    assert base64_size(0) == 0 and base64_size(1) == 4 and base64_size(3) == 4 and base64_size(4) == 8
    assert len(base64.b64encode(b"x" * 8_000_000)) == base64_size(8_000_000) < files_body_limit(8_000_000)


def test_a_form_or_text_body_never_reaches_the_route(client):
    body = json.dumps({"files": [{"name": "a.txt", "content_base64": b64(b"hello")}]})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        r = client.post("/api/indexes/demo/files", content=body, headers={"Content-Type": ctype})
        assert r.status_code == 415, (ctype, r.text)
    r = client.post("/api/indexes/demo/files", content=body,
                    headers={"Content-Type": "application/json", "Origin": "https://evil.example"})
    assert r.status_code == 403
    assert client.get("/api/indexes/demo").json()["chunks"] == 16


def test_bad_requests_and_unknown_indexes(client):
    assert client.post("/api/indexes/demo/files", json={"files": []}).status_code == 400
    r = client.post("/api/indexes/demo/files", json={"files": [{"name": "a.txt"}]})
    assert r.status_code == 400 and "content_base64" in r.json()["error"]
    r = client.post("/api/indexes/nope/files", json={"files": [{"name": "a.txt", "content_base64": "aGk="}]})
    assert r.status_code == 404


@pytest.mark.parametrize("name, ok", [("보고서.hwp", True), ("Report v2.PDF", True), ("a.b.docx", True),
                                      ("notes", False), ("a.jsonl", False), ("x/y.txt", False),
                                      ("", False), ("   ", False), ("a\u202e.txt", False)])
def test_check_name(name, ok):
    got, why = check_name(name)
    assert (got != "" and why == "") == ok, (got, why)


def test_names_are_read_in_nfc():
    nfd = "\u1100\u1161.txt"  # 가.txt decomposed, as macOS names files
    assert check_name(nfd)[0] == "가.txt"
    assert decode_files([(nfd, b64(b"x"))], 100)[0].name == "가.txt"
