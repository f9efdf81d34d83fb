"""Errors as the API sends them: a refusal that carries a message of the table sends it too (for a page that
shows it in its own language), scrubbed of server paths like the text."""
from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from gaji.errors import ConfigError, InputError
from gaji.messages import Msg
from gaji.serve.errors import add_error_handlers


def _app() -> FastAPI:
    app = FastAPI()
    add_error_handlers(app)

    @app.get("/empty")
    def empty() -> None:
        raise InputError(Msg("read.empty_file"), path="/srv/gaji/docs/빈.txt")

    @app.get("/damaged")
    def damaged() -> None:
        raise InputError(Msg("read.damaged", {"label": "PDF", "detail": "xref at /srv/gaji/docs/a.pdf"}))

    @app.get("/plain")
    def plain() -> None:
        raise ConfigError("k: must be at least 1")

    return app


def test_a_refusal_with_a_table_message_sends_it_scrubbed():
    with TestClient(_app()) as c:
        r = c.get("/empty")
        assert r.status_code == 400 and r.json()["error"] == "<path>: empty file"
        assert Msg.from_dict(r.json()["msg"]).text("ko") == "빈 파일입니다"
        r = c.get("/damaged")
        assert "/srv" not in r.text
        assert Msg.from_dict(r.json()["msg"]).text("ko") == "PDF 문서로 읽을 수 없습니다: xref at <path>"
        r = c.get("/plain")
        assert r.json() == {"error": "k: must be at least 1"}  # no message of the table: the text alone
