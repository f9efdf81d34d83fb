"""`gaji methods`: recipes with their titles first, then methods with their options."""
import json

from gaji.cli.main import main


def test_methods_lists_recipes_with_titles_and_knobs(capsys):
    assert main(["methods", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    recipes = {r["name"]: r for r in info["recipes"]}
    assert recipes["tree"]["title_ko"] == "질문 트리" and recipes["tree"]["method"] == "toq"
    assert recipes["one"]["options"] == {"passage_trim": "relevant", "passage_chars_ko": 400, "reask": True}
    assert "passages" in recipes["one"]["knobs"] and {k["name"] for k in info["knobs"]} >= {"passages", "lang"}
    assert "toq" in {m["name"] for m in info["methods"]}
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    assert "recipes (gaji ask --method NAME)" in out
    assert "tree@1" in out and "toq-paper@1" in out and "chain-ircot@1" in out  # the table wraps the titles
