"""Model assembly from part packages: size/hash checks, errors, reuse, atomicity, concurrency."""
from __future__ import annotations

import hashlib
import multiprocessing
import os
from pathlib import Path

import pytest

from gaji.llm import models
from gaji.llm.models import ModelError, ModelSpec, ensure_model, model_info


def make_parts(root: Path, module: str, chunks: list[bytes]) -> dict[str, Path]:
    """Fake installed part packages: <root>/<module><i>/data/part<ii>.bin."""
    dirs = {}
    for i, data in enumerate(chunks, 1):
        d = root / f"{module}{i}"
        (d / "data").mkdir(parents=True)
        (d / "data" / f"part{i:02d}.bin").write_bytes(data)
        dirs[f"{module}{i}"] = d
    return dirs


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    chunks = [os.urandom(3000), os.urandom(2500), os.urandom(10)]
    whole = b"".join(chunks)
    dirs = make_parts(tmp_path / "site", "fake_part", chunks)
    spec = ModelSpec(
        name="fake",
        file="fake.gguf",
        package="fake-part",
        module="fake_part",
        parts=3,
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )
    monkeypatch.setitem(models.MODELS, "fake", spec)
    monkeypatch.setattr(models, "_locate_package", lambda m: dirs.get(m))
    monkeypatch.setattr(models, "_CHUNK", 1024)  # several reads per part
    return spec, whole, dirs, tmp_path / "home"


def test_assembles_and_verifies(fake_model):
    spec, whole, _, home = fake_model
    seen = []
    path = ensure_model("fake", home=home, progress=lambda d, t: seen.append((d, t)))
    assert path == home / "models" / "fake.gguf"
    assert path.read_bytes() == whole
    assert seen[-1] == (len(whole), len(whole))
    assert models._stamp_ok(path, spec)
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".part")]  # no temp left behind
    info = model_info("fake", home=home)
    assert info["assembled"] and info["verified"] and info["size"] == len(whole)


def test_default_home_follows_env(fake_model, monkeypatch, tmp_path):
    monkeypatch.setenv("GAJI_HOME", str(tmp_path / "envhome"))
    assert ensure_model("fake") == tmp_path / "envhome" / "models" / "fake.gguf"


def test_reuse_hashes_once(fake_model, monkeypatch):
    spec, whole, dirs, home = fake_model
    path = ensure_model("fake", home=home)
    calls = []
    real = models.sha256_file
    monkeypatch.setattr(models, "sha256_file", lambda p, progress=None: calls.append(p) or real(p))
    monkeypatch.setattr(models, "_locate_package", lambda m: None)  # parts gone: must not be needed
    assert ensure_model("fake", home=home) == path
    assert calls == []  # the stamp remembered the hash

    models._stamp_path(path).unlink()  # stamp lost: hash once more, then remembered again
    assert ensure_model("fake", home=home) == path
    assert ensure_model("fake", home=home) == path
    assert len(calls) == 1


def test_wrong_size_or_changed_file_is_reassembled(fake_model):
    spec, whole, _, home = fake_model
    path = ensure_model("fake", home=home)
    path.write_bytes(whole[:-1])  # truncated
    assert ensure_model("fake", home=home).read_bytes() == whole

    # same size, different content, newer mtime: the stamp no longer matches -> re-hash -> rebuild
    path.write_bytes(b"\0" * len(whole))
    os.utime(path, ns=(1, 1))
    assert ensure_model("fake", home=home).read_bytes() == whole


def test_hash_mismatch_is_a_clear_error_and_leaves_nothing(fake_model, monkeypatch):
    spec, whole, dirs, home = fake_model
    (dirs["fake_part2"] / "data" / "part02.bin").write_bytes(b"x" * 2500)  # same size, wrong bytes
    with pytest.raises(ModelError, match="SHA-256 mismatch.*pip install 'gaji\\[models\\]'"):
        ensure_model("fake", home=home)
    assert not (home / "models" / "fake.gguf").exists()
    assert not [p for p in (home / "models").iterdir() if p.name.endswith(".part")]


def test_size_mismatch_is_a_clear_error(fake_model):
    spec, whole, dirs, home = fake_model
    (dirs["fake_part3"] / "data" / "part03.bin").write_bytes(b"short")
    with pytest.raises(ModelError, match="add up to"):
        ensure_model("fake", home=home)


def test_missing_part_package(fake_model, monkeypatch):
    spec, whole, dirs, home = fake_model
    del dirs["fake_part2"]
    with pytest.raises(ModelError, match=r"missing part package\(s\) fake-part2; run: pip install 'gaji\[models\]'"):
        ensure_model("fake", home=home)
    assert model_info("fake", home=home)["parts_installed"] is False


def test_unknown_model():
    with pytest.raises(ModelError, match="unknown embedded model"):
        ensure_model("nope")


def test_crash_midway_leaves_no_partial_file(fake_model, monkeypatch):
    spec, whole, _, home = fake_model

    def boom(done, total):
        if done > 3000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ensure_model("fake", home=home, progress=boom)
    assert list((home / "models").glob("fake.gguf*")) in ([], [home / "models" / "fake.gguf.lock"])
    assert not [p for p in (home / "models").iterdir() if p.name.endswith(".part")]
    assert ensure_model("fake", home=home).read_bytes() == whole


def _assemble_in_child(args):
    spec, dirs, home = args
    models.MODELS["fake"] = spec
    models._locate_package = lambda m: dirs.get(m)
    return str(ensure_model("fake", home=home))


def test_concurrent_processes_assemble_once(fake_model):
    spec, whole, dirs, home = fake_model
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(3) as pool:
        paths = pool.map(_assemble_in_child, [(spec, dirs, home)] * 6)
    assert len(set(paths)) == 1
    assert Path(paths[0]).read_bytes() == whole
    assert not [p for p in (home / "models").iterdir() if p.name.endswith(".part")]


def test_real_part_locator_finds_nothing_for_unknown_module():
    assert models._locate_package("gaji_no_such_part_module_1") is None


def test_pinned_specs_match_developers_md():
    big, small = models.MODELS["qwen2.5-coder-1.5b"], models.MODELS["qwen2.5-0.5b"]
    assert (big.parts, big.size) == (22, 1_117_320_768)
    assert (small.parts, small.size) == (6, 491_400_064)
    assert big.sha256.startswith("cc324af0") and small.sha256.startswith("1d961463")
