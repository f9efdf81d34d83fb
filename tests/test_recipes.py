"""Recipes: defined once, accepted wherever a method name is, recorded in the trace, the routes auto runs."""
from __future__ import annotations

import dataclasses
import json

import pytest

from gaji import recipes
from gaji.api import Gaji
from gaji.config import Settings
from gaji.errors import ConfigError
from gaji.llm.scripted import ScriptedLLM
from gaji.registry import METHODS, is_method_name, method_knobs, method_names, resolve_method
from gaji.testing import ListRetriever
from gaji.types import Trace

# what auto's routes ran before they referred to recipes (the router file's "methods", written out by hand): the
# recipes must build exactly these, so that auto's answers do not change
ROUTES_BEFORE = {
    "closed": {"method": "nor", "options": {}},
    "one": {"method": "oner", "options": {"passage_trim": "relevant", "passage_chars_ko": 400, "reask": True}},
    "chain": {"method": "ircot", "options": {}},
    "tree": {"method": "toq", "options": {"respond": "plain", "evaluate_root": False, "order_hints": True,
                                          "decomposer": "routed", "order_decide": True, "integrate": "none",
                                          "evaluate_final": False, "final_search": True, "intersect": True,
                                          "intersect_decide": True, "reask": True}},
}


def test_the_shipped_recipes_exist_with_words_in_both_languages():
    names = [r.name for r in recipes.list()]
    assert {"closed", "one", "chain-ircot", "tree", "toq-paper"} <= set(names)
    for r in recipes.list():
        assert r.version >= 1 and r.ref == f"{r.name}@{r.version}"
        assert r.title_ko and r.title_en and r.help_ko and r.help_en
        assert any("\uac00" <= ch <= "\ud7a3" for ch in r.title_ko + r.help_ko)  # the Korean words are Korean
        assert r.title("ko") == r.title_ko and r.help("en") == r.help_en


def test_a_recipe_never_takes_a_method_name_and_its_options_make_its_method():
    for r in recipes.list():
        assert r.name not in METHODS.names(), f"recipe {r.name!r} would shadow the method of that name"
        assert r.method in METHODS
        m = Gaji(settings=Settings(llm="scripted")).make_method(r.name)
        assert m.name == r.method and m.recipe == r.ref
        for k, v in r.options.items():
            assert getattr(m.opts, k) == v, (r.name, k)


def test_auto_routes_run_the_recipes_and_build_what_they_ran_before():
    from gaji.methods.auto.method import Auto
    from gaji.methods.auto.router import ROUTE_METHODS, ROUTE_RECIPES, route_methods, shared_auto_router

    assert route_methods() == ROUTE_METHODS == ROUTES_BEFORE
    router = shared_auto_router()
    assert router.methods == ROUTES_BEFORE
    assert router.recorded_methods == ROUTES_BEFORE  # the shipped file was trained on these: nothing moved
    auto = Auto()
    for route, name in ROUTE_RECIPES.items():
        built = auto.route_method(route, router.methods)
        direct = Gaji(settings=Settings(llm="scripted")).make_method(name)
        assert type(built) is type(direct) and dataclasses.asdict(built.opts) == dataclasses.asdict(direct.opts)


def test_the_router_file_keeps_its_methods_as_provenance_only(tmp_path):
    from gaji.methods.auto.router import AutoRouter, shared_auto_router

    obj = shared_auto_router().to_dict()
    obj["methods"]["tree"] = {"method": "toq", "options": {"respond": "json"}}  # an older recording
    path = tmp_path / "router.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    r = AutoRouter.load(path)
    assert r.methods == ROUTES_BEFORE  # what runs: the recipes
    assert r.recorded_methods["tree"] == {"method": "toq", "options": {"respond": "json"}}
    assert r.to_dict()["methods"]["tree"]["options"] == {"respond": "json"}  # saved back unchanged


def test_resolve_puts_the_callers_options_over_the_recipes():
    method, opts, r = resolve_method("tree", {"k": 3, "final-search": False})
    assert method == "toq" and r is recipes.get("tree")
    assert opts["k"] == 3 and opts["final_search"] is False and opts["decomposer"] == "routed"
    assert resolve_method("toq", {"k": 3}) == ("toq", {"k": 3}, None)  # a method stays itself
    assert resolve_method("tree@1")[2].ref == "tree@1"


@pytest.mark.parametrize("name, message", [
    ("tree@2", "recipe 'tree' is at version 1, not 2"),
    ("tree@x", "the version after '@' must be a number"),
    ("toq@1", "unknown method or recipe 'toq@1'"),
    ("bogus", "unknown method or recipe 'bogus'; known: .*toq-paper"),
])
def test_a_bad_name_is_a_config_error_naming_what_is_known(name, message):
    with pytest.raises(ConfigError, match=message):
        resolve_method(name)
    assert not is_method_name(name)


def test_names_list_methods_then_recipes():
    names = method_names()
    assert names[:len(METHODS.names())] == METHODS.names() and names[-len(recipes.list()):] == recipes.RECIPES.names()
    assert is_method_name("one") and is_method_name("oner") and is_method_name("toq-paper@1")


def test_the_paper_recipe_pins_what_the_default_tree_now_does():
    paper = Gaji(settings=Settings(llm="scripted")).make_method("toq-paper").opts
    plain = Gaji(settings=Settings(llm="scripted")).make_method("toq").opts
    assert plain.order_decide is True and plain.intersect_decide is True
    assert (paper.order_decide, paper.intersect_decide, paper.respond, paper.decomposer) == (False, False, "json", "paper")
    assert paper.evaluate_root is True and paper.integrate == "per_doc"  # the paper's own defaults untouched


def test_a_trace_records_the_recipe_it_ran():
    llm = ScriptedLLM(default="Battle of Guam")
    r = ListRetriever([("d1", "Battle of Guam", "The Battle of Guam was fought in 1944.")])
    g = Gaji(llm=llm, retriever=r, settings=Settings(retries=0))
    t = g.ask("훈민정음은 몇 년에 반포되었나요?", method="one")
    assert t.method == "oner" and t.recipe == "one@1"
    assert t.params["passage_chars_ko"] == 400 and t.params["reask"] is True
    d = t.to_dict()
    assert d["recipe"] == "one@1" and Trace.from_dict(d).recipe == "one@1"
    plain = g.ask("When was the Battle of Guam?", method="oner")
    assert plain.recipe == "" and "recipe" not in plain.to_dict()


def test_knobs_apply_where_their_option_exists():
    tree = {k.name for k in method_knobs("tree")}
    assert {"passages", "depth", "lang"} <= tree
    assert {k.name for k in method_knobs("closed")} == {"lang"}  # nor has no k and no depth
    assert "depth" not in {k.name for k in method_knobs("one")}
    for k in recipes.KNOBS:
        d = k.to_dict()
        assert d["title_ko"] and d["title_en"] and bool(d["option"]) != bool(d["request_field"])
        assert json.dumps(d)


def test_a_recipe_defined_twice_or_badly_is_refused():
    reg = recipes.RecipeRegistry()
    r = recipes.Recipe("one", 1, "oner", {})
    reg.add(r)
    with pytest.raises(ValueError, match="defined twice"):
        reg.add(r)
    with pytest.raises(ValueError, match="no '@'"):
        reg.add(dataclasses.replace(r, name="x@1"))
    with pytest.raises(ValueError, match="version must be at least 1"):
        reg.add(dataclasses.replace(r, name="y", version=0))
    with pytest.raises(ValueError, match=r"recipe 'x' has no title and help in gaji.message_table \(method.x"):
        reg.add(dataclasses.replace(r, name="x"))  # its words are the table's: a recipe without them is refused
    with pytest.raises(ConfigError, match="unknown recipe 'z'; known: one"):
        reg.get("z")
