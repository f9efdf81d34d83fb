"""The message table: both languages of every entry, slots, messages kept for later, and the CLI speaking Korean."""
from __future__ import annotations

from pathlib import Path

import pytest

from gaji.corpus.docgen import lock_hwp
from gaji import messages
from gaji.errors import InputError
from gaji.message_table import TABLE
from gaji.messages import Msg, env_lang, error_text, lang_of, slots, text

HANGUL = range(0xAC00, 0xD7A4)


def test_every_entry_has_both_languages_with_the_same_slots():
    for key, (ko, en) in TABLE.items():
        assert ko.strip() and en.strip(), key
        fields_ko = {f for _, f, _, _ in messages._FORMATTER.parse(ko) if f}
        fields_en = {f for _, f, _, _ in messages._FORMATTER.parse(en) if f}
        assert fields_ko == fields_en, key


def test_korean_entries_are_korean():
    # page, method, option and refusal texts: the Korean side has Hangul (file formats and marks aside)
    for key, (ko, _) in TABLE.items():
        if key.startswith(("page.", "conv.", "docs.", "method.", "option.", "read.", "error.", "status.", "reply.",
                           "model.", "knob.", "methods.", "passage.")):
            if key in ("upload.formats",):
                continue
            assert any(ord(c) in HANGUL for c in ko), key


def test_text_fills_slots_and_names_mistakes():
    assert text("docs.chunks", "ko") == "조각"
    assert text("upload.added", "ko", n=3) == "추가됨: 조각 3개"
    assert text("upload.added", "en", n=3) == "added: 3 chunks"
    assert text("upload.added", "fr", n=1) == "added: 1 chunks"  # an unknown language reads English
    with pytest.raises(KeyError, match="no-such"):
        text("no-such")
    with pytest.raises(KeyError, match="'n'"):
        text("upload.added", "ko")
    assert slots("read.wrong_content") == {"label", "kind"}


def test_languages_from_tags_and_locales():
    assert [lang_of(v) for v in ("ko", "ko-KR", "ko_KR.UTF-8", "en_US", "C", None)] == ["ko", "ko", "ko", "en", "en", "en"]
    assert lang_of("fr", "") == ""
    assert env_lang({"LANG": "ko_KR.UTF-8"}) == "ko"
    assert env_lang({"LC_ALL": "en_US.UTF-8", "LANG": "ko_KR.UTF-8"}) == "en"  # POSIX order: LC_ALL first
    assert env_lang({"GAJI_LANG": "ko", "LC_ALL": "C"}) == "ko"
    assert env_lang({}) == "en"


def test_a_message_kept_for_later_prints_in_english_and_renders_in_korean():
    m = Msg("read.wrong_content", {"label": "DOCX", "kind": Msg("read.kind.doc")})
    assert str(m) == "the extension says DOCX, but the content is a Word 97-2003 .doc file; save it as .docx"
    assert m.text("ko") == "확장자는 DOCX인데 내용은 워드 97-2003 .doc 파일입니다. .docx로 저장해 주세요"
    back = Msg.from_dict(m.to_dict())
    assert back == m
    assert Msg.from_dict({"id": "read.wrong_content", "params": {"label": "DOCX"}}) is None  # a slot missing
    assert Msg.from_dict({"id": "not-in-table"}) is None and Msg.from_dict("text") is None


def test_an_error_with_a_table_message_keeps_its_place():
    e = InputError(Msg("read.empty_file"), path="a/빈.txt")
    assert str(e) == "a/빈.txt: empty file"
    assert error_text(e, "ko") == "a/빈.txt: 빈 파일입니다"
    assert error_text(ValueError("plain"), "ko") == "plain"


def test_method_and_option_names_for_people():
    from gaji.registry import METHODS

    for name in METHODS.names():  # every shipped method has a name and help in both languages
        if not METHODS.get(name).__module__.startswith("gaji."):  # test doubles that test modules register
            continue
        assert messages.method_title(name, "ko") != name, name
        assert messages.method_help(name, "ko"), name
    assert messages.option_label("k", "ko") == "검색할 문서 수"
    assert messages.option_label("no_such_option", "ko") == "no_such_option"


def test_recipes_and_knobs_take_their_words_from_the_table():
    from gaji import recipes

    for r in recipes.list():
        for lang in ("ko", "en"):
            assert r.title(lang) == text(f"method.{r.name}", lang) and r.help(lang) == text(f"method.{r.name}.help", lang)
        assert r.to_dict()["title_ko"] == text(f"method.{r.name}", "ko")
    for k in recipes.KNOBS:
        d = k.to_dict()
        assert (d["title_ko"], d["title_en"]) == TABLE[f"knob.{k.name}"] and (d["help_ko"], d["help_en"]) == TABLE[
            f"knob.{k.name}.help"]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_chat_reply_labels_its_parts_in_the_answers_language(lang):
    from gaji.serve.citations import Source, answer_of_shown, render
    from gaji.types import Location
    from gaji.serve.citations import place_label

    label = place_label(Location(file="docs/보고서.pdf", page=3), "보고서", lang)
    assert label == "보고서.pdf, " + text("loc.page", lang, n=3)
    shown = render("The office opens at nine.", "nine", "It opens at 9 a.m. on weekdays.",
                   [Source(1, label, "http://h/passage/x")], lang).content
    assert f"**{text('reply.answer', lang)}:** nine" in shown
    assert f"\n\n{text('reply.because', lang)}: It opens at 9 a.m. on weekdays." in shown
    assert f"**{text('reply.sources', lang)}**\n[1] [{label}](http://h/passage/x)" in shown
    assert answer_of_shown(shown) == "nine"  # a reply sent back as history, in either language


# string literals of gaji/serve and gaji/cli that hold Hangul and are not words said to a user
_NOT_SAID = {
    ("gaji/serve/chat.py", "답|정답|출처|근거"),  # labels a model's reply may carry, matched to take them out
    ("gaji/serve/schemas.py", "보고서.hwp"),  # an example file name in the API schema
    ("gaji/cli/demo_cmd.py", "훈민정음은"),  # the demo's question: data, not a label
    ("gaji/cli/expand_judge.py", "(참고용)"),  # the Korean word the judge's page shows, named in --help
    ("gaji/cli/main.py", "gaji (가지)"),  # the name
    ("gaji/serve/routes/passage.py", ">가지<"),  # the name, as the page's logo
}


def test_serve_and_cli_speak_korean_through_the_table_only():
    """No Korean word reaches a user from the server or the command line except through the message table:
    the only Hangul string literals there (docstrings aside) are the few that are not words said to a user."""
    import ast

    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted([*(root / "gaji" / "serve").rglob("*.py"), *(root / "gaji" / "cli").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        rel = path.relative_to(root).as_posix()
        for n in ast.walk(tree):
            if (isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                    and any(ord(c) in HANGUL for c in n.value)
                    and not any(rel == f and mark in n.value for f, mark in _NOT_SAID)):
                found.append(f"{rel}:{n.lineno}: {n.value[:60]!r}")
    assert not found, "\n".join(found)
    # the page's scripts: Hangul only in comments and the language switch's own name
    for path in sorted((root / "gaji" / "serve" / "static").glob("*.js")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip().startswith(("/*", "*")):  # a block comment's line
                continue
            code = line.split("//", 1)[0].replace('"한국어"', "")
            assert not any(ord(c) in HANGUL for c in code), f"{path.name}:{i}: {line.strip()}"


def _password_hwp(dst: Path) -> Path:
    return lock_hwp(Path(__file__).parent / "corpus" / "formats" / "fixtures" / "gaji_report.hwp", dst)


@pytest.mark.parametrize("locale,expect", [("ko_KR.UTF-8", "암호가 걸린 한글(HWP) 문서입니다"),
                                            ("en_US.UTF-8", "password-protected HWP document")])
def test_the_cli_refuses_a_password_hwp_in_the_users_language(tmp_path, monkeypatch, capsys, locale, expect):
    from gaji.cli.main import main

    for key in ("GAJI_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LANG", locale)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "memo.md").write_text("# 메모\n\n회의는 목요일이다.\n", encoding="utf-8")
    _password_hwp(folder / "암호.hwp")
    code = main(["index", "build", str(folder), "--out", str(tmp_path / "idx"), "--no-dense"])
    err = capsys.readouterr().err
    assert code == 3 and expect in err, err  # a partial build: the good file indexed, the refused one named
    assert ("읽지 못한 파일 1개" if locale.startswith("ko") else "refused 1 file(s)") in err
    assert "Traceback" not in err

    code = main(["index", "build", str(folder / "암호.hwp"), "--out", str(tmp_path / "idx2"), "--strict"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("오류: " if locale.startswith("ko") else "error: ") and expect in err, err
