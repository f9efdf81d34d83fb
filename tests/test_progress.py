import io

from rich.console import Console

from gaji.progress import Bars


def test_plain_lines_every_tenth_when_not_a_terminal():
    out = io.StringIO()
    with Bars(True, console=Console(file=out, force_terminal=False), lines=True) as bars:
        t = bars.task("embedding", total=20, completed=4)
        for _ in range(16):
            t.advance(1, status=lambda task: f"{task.new} new")
    text = out.getvalue().splitlines()
    assert text[0] == "embedding 6/20  2 new" and text[-1] == "embedding 20/20  16 new"
    assert len(text) == 8  # 6, 8, …, 20: one line per 2 items (10 % of 20)
    assert t.new == 16 and t.rate() > 0


def test_no_lines_unless_asked_and_nothing_when_disabled():
    for enabled, lines in ((True, False), (False, True)):
        out = io.StringIO()
        with Bars(enabled, console=Console(file=out, force_terminal=False), lines=lines) as bars:
            t = bars.task("x", total=3)
            t.advance(3, status="done")
            t.status("still")
        assert out.getvalue() == ""


def test_a_terminal_gets_a_live_bar_with_the_status_text():
    out = io.StringIO()
    with Bars(True, console=Console(file=out, force_terminal=True, width=120)) as bars:
        assert bars.live
        t = bars.task("expanding (LLM)", total=2)
        t.advance(2, status="1.5 s/chunk")
    assert "expanding (LLM)" in out.getvalue() and "1.5 s/chunk" in out.getvalue()
