"""`gaji model fetch|info` with fake part packages."""
from __future__ import annotations

import hashlib
import json

import pytest

from gaji.cli.main import main
from gaji.llm import models
from gaji.llm.models import ModelSpec


@pytest.fixture
def only_fake_model(tmp_path, monkeypatch):
    data = b"GGUF" + bytes(range(256)) * 8
    d = tmp_path / "site" / "fakecli_part1"
    (d / "data").mkdir(parents=True)
    (d / "data" / "part01.bin").write_bytes(data)
    spec = ModelSpec("fake", "fake.gguf", "fakecli-part", "fakecli_part", 1, len(data), hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(models, "MODELS", {"fake": spec})
    monkeypatch.setattr(models, "_locate_package", lambda m: d if m == "fakecli_part1" else None)
    return spec


def test_fetch_and_info(only_fake_model, capsys, tmp_path):
    assert main(["model", "info"]) == 0
    assert "not assembled" in capsys.readouterr().out
    assert main(["model", "fetch", "all"]) == 0
    out = capsys.readouterr().out
    assert "fake.gguf" in out and f"{only_fake_model.size:,} bytes" in out and only_fake_model.sha256 in out
    assert main(["model", "info", "--json"]) == 0
    [info] = json.loads(capsys.readouterr().out)["models"]
    assert info["assembled"] and info["verified"] and info["size"] == only_fake_model.size


def test_fetch_errors_are_user_errors(only_fake_model, capsys, monkeypatch):
    assert main(["model", "fetch", "huge"]) == 2
    assert "unknown model 'huge'" in capsys.readouterr().err
    monkeypatch.setattr(models, "_locate_package", lambda m: None)
    assert main(["model", "fetch", "fake"]) == 2
    assert "pip install 'gaji[models]'" in capsys.readouterr().err
