"""The one prompt pattern (gaji/llm/prompts.py): fill, Prompt, ByLang, and every prompt module of gaji held to it."""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import gaji
from gaji.llm.prompts import ByLang, Prompt, chat_messages, fill, template_fields

# the prompt modules gaji ships; a new one is found by the scan below and must be added here
KNOWN = {
    "gaji.conversation.prompts",
    "gaji.eval.judge_prompts",
    "gaji.expand.judge_prompts",
    "gaji.expand.prompts",
    "gaji.methods.contregen.prompts",
    "gaji.methods.prompts.chain",
    "gaji.methods.prompts.common",
    "gaji.methods.prompts.compare",
    "gaji.methods.prompts.cot",
    "gaji.methods.prompts.direct",
    "gaji.methods.prompts.reask",
    "gaji.methods.prompts.self_ask",
    "gaji.methods.toq.prompts",
}


def prompt_modules() -> dict[str, ByLang]:
    """Every module of gaji whose name says it holds prompts, with its PROMPTS."""
    out = {}
    for info in pkgutil.walk_packages(gaji.__path__, "gaji."):
        leaf = info.name.rsplit(".", 1)[-1]
        if info.ispkg or not (leaf == "prompts" or leaf.endswith("_prompts") or ".prompts." in info.name):
            continue
        if info.name == "gaji.llm.prompts":
            continue
        out[info.name] = getattr(importlib.import_module(info.name), "PROMPTS", None)
    return out


def templates(prompt_set: object) -> dict[str, str]:
    """field path -> template, for every string of a prompt set (a Prompt's system and user; shots are literal)."""
    out = {}
    for f in dataclasses.fields(prompt_set):
        value = getattr(prompt_set, f.name)
        if isinstance(value, str):
            out[f.name] = value
        elif isinstance(value, Prompt):
            out[f"{f.name}.system"], out[f"{f.name}.user"] = value.system, value.user
    return out


def test_fill_replaces_fields_ignores_extra_ones_and_names_a_missing_one():
    assert fill("Question: {question}", question="누가?", other=1) == "Question: 누가?"
    assert fill('JSON: {{"a": 1}}') == 'JSON: {"a": 1}'
    assert fill("{x}", x="{y}") == "{y}"  # a value is never read as a template
    with pytest.raises(ValueError, match="'passages'"):
        fill("{data_note}\n{passages}", data_note="note")


def test_template_fields():
    assert template_fields('{a} and {b} {{"c": 1}}') == {"a", "b"}
    with pytest.raises(ValueError):
        template_fields('{"c": 1}')  # a literal brace must be doubled


def test_a_prompt_renders_system_shots_then_the_user_turn():
    p = Prompt(system="Answer in {lang_name}.", user="Q: {question}", shots=(("Q: 1+1?", "2"),))
    assert p.messages(lang_name="English", question="2+2?") == [
        {"role": "system", "content": "Answer in English."},
        {"role": "user", "content": "Q: 1+1?"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "Q: 2+2?"},
    ]
    assert chat_messages("s", "u") == [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def test_by_lang_gives_korean_for_ko_and_english_otherwise():
    @dataclasses.dataclass(frozen=True)
    class Set:
        hello: str

    @dataclasses.dataclass(frozen=True)
    class Other:
        hello: str

    prompts = ByLang(en=Set("hello"), ko=Set("안녕하세요"))
    assert prompts["ko"].hello == "안녕하세요" and prompts["en"].hello == "hello" and prompts["auto"].hello == "hello"
    assert [lang for lang, _ in prompts.items()] == ["en", "ko"]
    with pytest.raises(TypeError, match="Set and Other"):
        ByLang(en=Set("hello"), ko=Other("안녕"))


def test_every_prompt_module_follows_the_pattern():
    found = prompt_modules()
    assert set(found) == KNOWN, "a prompt module was added or removed: update KNOWN and docs/extending.md"
    for name, prompts in found.items():
        assert isinstance(prompts, ByLang), f"{name}: PROMPTS must be a ByLang"
        assert dataclasses.is_dataclass(prompts.en) and type(prompts.en).__dataclass_params__.frozen, name
        en, ko = templates(prompts.en), templates(prompts.ko)
        assert en, f"{name}: a prompt set with no text"
        for field, text in en.items():
            try:
                want, got = template_fields(text), template_fields(ko[field])
            except ValueError as e:
                pytest.fail(f"{name}.{field}: not a template ({e}); double a literal brace")
            assert want == got, f"{name}.{field}: English asks for {sorted(want)}, Korean for {sorted(got)}"
        for f in dataclasses.fields(prompts.en):
            for lang, value in prompts.items():
                v = getattr(value, f.name)
                if isinstance(v, Prompt):
                    assert isinstance(v.shots, tuple), f"{name}.{f.name} [{lang}]: shots must be a tuple"
                    assert all(isinstance(u, str) and isinstance(a, str) for u, a in v.shots), f"{name}.{f.name}"


def test_korean_prompts_are_korean():
    for name, prompts in prompt_modules().items():
        ko = " ".join(templates(prompts.ko).values())
        assert any("\uac00" <= c <= "\ud7a3" for c in ko), f"{name}: the Korean prompt set has no Hangul"
