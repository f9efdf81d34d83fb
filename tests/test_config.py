import pytest

from gaji.config import load_settings
from gaji.errors import ConfigError


def test_precedence_flag_over_env_over_file_over_default(tmp_path):
    cfg = tmp_path / "gaji.toml"
    cfg.write_text('llm = "openai:qwen"\nk = 7\nretriever = "bm25"\n', encoding="utf-8")
    env = {"GAJI_K": "9", "GAJI_LANG": "ko"}
    s = load_settings({"retriever": "dense"}, env=env, cwd=tmp_path)
    assert s.llm == "openai:qwen" and s.sources["llm"].startswith("file")
    assert s.k == 9 and s.sources["k"] == "env GAJI_K"
    assert s.retriever == "dense" and s.sources["retriever"] == "flag"
    assert s.method == "auto" and s.sources["method"] == "default"  # the adaptive method is the default
    assert s.lang == "ko"


def test_yaml_with_gaji_table_and_explicit_path(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("gaji:\n  cache: true\n  parallel: 4\n", encoding="utf-8")
    s = load_settings({}, config_path=str(p), env={})
    assert s.cache is True and s.parallel == 4


def test_unknown_key_names_the_file(tmp_path):
    p = tmp_path / "gaji.toml"
    p.write_text("modle = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"gaji.toml: unknown setting 'modle'"):
        load_settings({}, env={}, cwd=tmp_path)


def test_bad_env_value_names_the_variable():
    with pytest.raises(ConfigError, match="GAJI_K"):
        load_settings({}, env={"GAJI_K": "many"})


def test_none_flags_do_not_override(tmp_path):
    s = load_settings({"k": None}, env={"GAJI_K": "3"}, cwd=tmp_path)
    assert s.k == 3


def test_method_default_k_is_kept_unless_k_is_given():
    from gaji.api import Gaji
    from gaji.llm.scripted import ScriptedLLM

    g = Gaji(llm=ScriptedLLM(default="x"), settings=load_settings({}, env={}))
    assert g.make_method("ircot").opts.k == 4  # IRCoT's own default
    g = Gaji(llm=ScriptedLLM(default="x"), settings=load_settings({"k": 8}, env={}))
    assert g.make_method("ircot").opts.k == 8 and g.make_method("oner").opts.k == 8
    assert g.make_method("oner", {"k": "2"}).opts.k == 2


def test_prompt_cache_setting_from_env():
    from gaji.config import load_settings

    assert load_settings({}, env={}).prompt_cache is True
    assert load_settings({}, env={"GAJI_PROMPT_CACHE": "0"}).prompt_cache is False


def test_retriever_options_from_flag_env_and_file(tmp_path):
    assert load_settings({}, env={}, cwd=tmp_path).retriever_options == {}
    s = load_settings({}, env={"GAJI_RETRIEVER_OPTIONS": "max_depth=1; base = bm25"}, cwd=tmp_path)
    assert s.retriever_options == {"max_depth": "1", "base": "bm25"}
    (tmp_path / "gaji.toml").write_text('retriever = "contre"\n[retriever_options]\nmax_depth = 1\n', encoding="utf-8")
    s = load_settings({}, env={}, cwd=tmp_path)
    assert s.retriever == "contre" and s.retriever_options == {"max_depth": "1"}
    s = load_settings({"retriever_options": {"max_depth": "2"}}, env={}, cwd=tmp_path)
    assert s.retriever_options == {"max_depth": "2"} and s.sources["retriever_options"] == "flag"
    with pytest.raises(ConfigError, match="GAJI_RETRIEVER_OPTIONS"):
        load_settings({}, env={"GAJI_RETRIEVER_OPTIONS": "max_depth"}, cwd=tmp_path)


def test_k_out_of_range_names_its_source_and_the_range(tmp_path):
    with pytest.raises(ConfigError, match=r"environment GAJI_K: setting 'k' must be between 1 and 100, not 1000"):
        load_settings({}, env={"GAJI_K": "1000"}, cwd=tmp_path)
    with pytest.raises(ConfigError, match=r"flag --k: setting 'k' must be between 1 and 100, not 0"):
        load_settings({"k": 0}, env={}, cwd=tmp_path)
    assert load_settings({"k": 100}, env={}, cwd=tmp_path).k == 100
