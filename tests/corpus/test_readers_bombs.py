"""The bomb corpus (gaji.corpus.bombs, generated here, never stored): every hostile file ends in the refusal its
case names, inside the worker process under its limits: no read over the time limit, the worker's peak RSS
under 1 GB, and the message names the limit (in Korean too)."""
from __future__ import annotations

import time

import pytest

from gaji.corpus.bombs import CASES, DAMAGED, hwp_fixture
from gaji.corpus.formats import LimitExceeded, ReadLimits, Unreadable
from gaji.corpus.formats.worker import IsolatedReader
from gaji.corpus.readers import read_documents
from gaji.errors import ConfigError

GB = 1024 ** 3


def _outcome(case, path):
    limits = ReadLimits.from_options(case.limits)
    with IsolatedReader(limits) as reader:
        reader.start()
        t0 = time.monotonic()
        try:
            out = reader.read(path, path.name)
            got, err = "read", None
            assert out.docs
        except LimitExceeded as e:
            got, err = e.refusal.key, e
        except Unreadable as e:
            got, err = DAMAGED, e
        took = time.monotonic() - t0
        rss = reader.last_peak_rss_kb * 1024
    return got, err, took, rss, limits


@pytest.mark.parametrize("case", CASES, ids=[c.filename for c in CASES])
def test_every_bomb_is_refused_within_its_limits(case, tmp_path):
    if case.filename.endswith(".hwp") and hwp_fixture() is None:
        pytest.skip("the HWP fixture is not in this checkout")
    path = case.build(tmp_path)
    got, err, took, rss, limits = _outcome(case, path)
    assert got in case.expect, f"{case.name}: {got}: {err}"
    assert took < limits.max_seconds + 2, took  # the worker is killed at max_seconds (30 s unless the case says)
    assert rss < GB
    if isinstance(err, LimitExceeded):
        assert str(err) == err.refusal.text("en") and err.refusal.text("ko") != str(err)
        assert any("\uac00" <= ch <= "\ud7a3" for ch in err.refusal.text("ko"))


def test_refusals_say_which_limit(tmp_path):
    bomb = next(c for c in CASES if c.filename == "bomb.xlsx").build(tmp_path)
    docs, report = read_documents([bomb], skip_bad=True, allow_empty=True, isolate=True)
    assert docs == [] and report.unreadable == 1
    assert report.skipped[0].reason == "xl/worksheets/sheet1.xml expands to more than 100 MB"
    assert report.refusals[str(bomb)].text("ko") == "xl/worksheets/sheet1.xml의 압축을 풀면 100 MB보다 커집니다"
    with pytest.raises(Exception) as e:  # without skip_bad the read fails naming the file and the limit
        read_documents([bomb], isolate=True)
    assert "bomb.xlsx" in str(e.value) and "expands to more than 100 MB" in str(e.value)


def test_broken_xml_is_not_called_empty(tmp_path):
    path = next(c for c in CASES if c.filename == "broken.hwpx").build(tmp_path)
    docs, report = read_documents([path], skip_bad=True, allow_empty=True)
    assert "broken XML in Contents/section0.xml (line 1" in report.skipped[0].reason
    assert "empty" not in report.skipped[0].reason


def test_a_killed_worker_is_replaced_for_the_next_file(tmp_path):
    slow = next(c for c in CASES if c.filename == "slow.html")
    bomb = slow.build(tmp_path)
    ok = tmp_path / "ok.html"
    ok.write_text("<html><body><p>계속 읽습니다.</p></body></html>", encoding="utf-8")
    with IsolatedReader(ReadLimits.from_options({"depth": "100000", "seconds": "2"})) as reader:
        with pytest.raises(LimitExceeded) as e:
            reader.read(bomb, bomb.name)
        assert e.value.refusal.key == "time"
        assert "계속 읽습니다." in reader.read(ok, ok.name).docs[0].text


def test_memory_limit_binds_the_worker(tmp_path):
    # the worker runs under RLIMIT_AS: 128 MB of address space cannot hold a 40 MB page three times over (bytes,
    # text, parse), and the file is refused with the memory limit while this process goes on
    path = tmp_path / "큰.html"
    path.write_bytes(b"<html><body>" + b"<p>\xea\xb0\x80 abc</p>" * 2_500_000 + b"</body></html>")
    with IsolatedReader(ReadLimits.from_options({"memory_mb": "128"})) as reader, pytest.raises(LimitExceeded) as e:
        reader.read(path, path.name)
    assert e.value.refusal.key in ("memory", "crashed"), e.value
    assert "128 MB" in str(e.value)


def test_limits_from_options_name_the_bad_one():
    assert ReadLimits.from_options({"expanded_mb": "50", "seconds": "2.5"}).max_expanded_bytes == 50 * 2 ** 20
    for bad, word in (({"expanded": "1"}, "unknown read limit"), ({"rows": "many"}, "must be a number"),
                      ({"seconds": "0"}, "between 0.1"), ({"depth": "-1"}, "between 8")):
        with pytest.raises(ConfigError, match=word):
            ReadLimits.from_options(bad)


def test_settings_carry_the_read_limits(tmp_path):
    from gaji.config import load_settings

    s = load_settings(env={"GAJI_READ_LIMITS": "expanded_mb=50;seconds=10"}, cwd=tmp_path)
    limits = ReadLimits.from_options(s.read_limits)
    assert limits.max_expanded_bytes == 50 * 2 ** 20 and limits.max_seconds == 10
