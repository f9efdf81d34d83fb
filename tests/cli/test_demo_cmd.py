"""`gaji demo` (gaji/cli/demo_cmd.py): the default method on two questions, then the tree on the multi-hop one."""
from __future__ import annotations

from gaji.cli import demo_cmd
from gaji.cli.main import main


def test_demo_asks_both_questions_then_shows_the_tree_route(tmp_path, monkeypatch, capsys):
    asked = []
    from gaji.api import Gaji

    real_ask = Gaji.ask

    def spy(self, question, method=None, options=None, **kw):
        asked.append((question, method, dict(options or {})))
        return real_ask(self, question, method=method, options=options, **kw)

    monkeypatch.setattr(Gaji, "ask", spy)
    main(["demo", "--out", str(tmp_path / "demo"), "--llm", "scripted:1945"])
    assert [q for q, _, _ in asked] == [*demo_cmd.QUESTIONS, demo_cmd.MULTI_HOP]
    assert asked[-1][1:] == ("auto", {"route": "tree"})
    out = capsys.readouterr().out
    assert "route=tree" in out
    # the Korean question's trace shows the cascade judging its one-retrieval answer
    korean = out.split(demo_cmd.QUESTIONS[1])[0]
    assert "확신도: 맞을 확률" in korean and "1 LLM calls" in korean

    asked.clear()
    main(["demo", "--out", str(tmp_path / "demo"), "--llm", "scripted:1945", "--no-tree"])
    assert [q for q, _, _ in asked] == list(demo_cmd.QUESTIONS)
