"""Refused files kept beside an index (gaji.index.refusals): a build lists them, a sync notes new ones and drops
the files it reads, the reason keeps its table message (so it can be shown in Korean)."""
from __future__ import annotations

import shutil
from pathlib import Path

from gaji.corpus.docgen import lock_hwp
from gaji.index.build import build_index
from gaji.index.refusals import Refusal, forget_refusals, note_refusals, read_refusals
from gaji.index.writer import sync_source
from gaji.messages import Msg

HWP = Path(__file__).resolve().parents[1] / "corpus" / "formats" / "fixtures" / "gaji_report.hwp"


def locked_hwp(dst: Path) -> Path:
    return lock_hwp(HWP, dst)


def test_notes_are_kept_replaced_and_forgotten(tmp_path):
    note_refusals(tmp_path, [Refusal("a.hwp", "password", Msg("read.hwp_password").to_dict()), Refusal("b.pdf", "x")])
    note_refusals(tmp_path, [Refusal("b.pdf", "y")], read_ok=["a.hwp"])
    got = {r.file: r for r in read_refusals(tmp_path)}
    assert set(got) == {"b.pdf"} and got["b.pdf"].reason == "y"
    forget_refusals(tmp_path, ["b.pdf"])
    assert read_refusals(tmp_path) == []
    (tmp_path / "refused.json").write_text("{not json", encoding="utf-8")
    assert read_refusals(tmp_path) == []  # an unreadable note is only rewritten, never an error


def test_a_build_and_a_sync_list_the_files_they_could_not_read(tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "memo.md").write_text("# 메모\n\n회의는 목요일이다.\n", encoding="utf-8")
    locked_hwp(folder / "sub" / "암호.hwp")
    out = tmp_path / "idx"
    build_index([str(folder)], out, dense=False, progress=False, skip_bad=True, korean_analyzer="bigram")
    (refused,) = read_refusals(out)
    assert refused.file == "sub/암호.hwp" and "password-protected HWP" in refused.reason
    assert Msg.from_dict(refused.msg).text("ko").startswith("암호가 걸린 한글(HWP) 문서입니다")

    shutil.copyfile(HWP, folder / "sub" / "암호.hwp")  # the password removed
    sync_source(out, folder, skip_bad=True, fill=False)
    assert read_refusals(out) == []
