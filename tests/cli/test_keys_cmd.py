"""`gaji keys add --read/--write/--rate`, `keys scope`, `keys list` with the scopes."""
from __future__ import annotations

from gaji.cli.main import main
from gaji.history.keys import KeyStore
from gaji.history.store import HistoryStore


def test_scoped_keys_from_the_command_line(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "h.sqlite3")
    monkeypatch.setenv("GAJI_HISTORY_DB", db)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["keys", "add", "webui", "--read", "docs"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("gaji-") and "(read docs)" in out.err
    assert main(["keys", "add", "ingest", "--write", "docs,manuals", "--rate", "30"]) == 0
    assert main(["keys", "add", "old"]) == 0  # no scopes given: full access, as keys had before
    capsys.readouterr()
    assert main(["keys", "scope", "old", "--read", "*"]) == 0
    assert main(["keys", "scope", "webui", "--rate", "10"]) == 0  # the scopes stay
    assert main(["keys", "scope", "nobody", "--full"]) == 2
    assert "no active key named 'nobody'" in capsys.readouterr().err
    assert main(["keys", "scope", "old"]) == 2 and "say what to change" in capsys.readouterr().err
    assert main(["keys", "add", "x", "--read", "a b"]) == 2 and "--read 'a b'" in capsys.readouterr().err
    assert main(["keys", "list"]) == 0
    table = capsys.readouterr().out
    assert "read docs" in table and "write docs, manuals" in table and "read *" in table
    store = HistoryStore.open(db)
    keys = {k.name: k for k in KeyStore(store.db).list()}
    store.close()
    assert keys["webui"].rate_per_min == 10 and keys["webui"].scopes.read == ("docs",)
    assert keys["ingest"].scopes.write == ("docs", "manuals") and keys["ingest"].rate_per_min == 30
    assert not keys["old"].scopes.full and keys["old"].scopes.allows("read", "any")
