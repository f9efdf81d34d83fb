"""ToQ streams its root's answer as it writes it: the first answer (one retrieval) is draft 1, and when
the tree grows, the answer written from the sub-questions is draft 2; sub-questions' answers are not
the answer and never stream."""
from test_toq_method import DOCS, Q, bridging_handlers
from toq_helpers import OverlapRetriever, make_ctx, routed_llm

from gaji.methods.toq.method import ToQ


def test_root_answers_stream_as_drafts_and_sub_answers_do_not():
    got = []
    ctx = make_ctx(routed_llm(bridging_handlers()), OverlapRetriever(DOCS))
    ctx.on_answer = got.append
    t = ToQ(k=3).run(Q, ctx)  # respond=plain: the answer call is free text, so it streams
    assert t.status == "ok" and t.answer == "Mercedes-Benz EQE"
    drafts = {}
    for piece in got:
        drafts[piece.draft] = drafts.get(piece.draft, "") + piece.text
    assert drafts == {1: "unknown", 2: "Mercedes-Benz EQE"}
    # streaming changed nothing in the accounting: each answer call is recorded once on the root
    assert [c.purpose for c in t.root.calls].count("answer") == 2


def test_json_responder_is_not_streamed():
    got = []
    ctx = make_ctx(routed_llm(bridging_handlers()), OverlapRetriever(DOCS))
    ctx.on_answer = got.append
    t = ToQ(k=3, respond="json").run(Q, ctx)
    assert t.answer == "Mercedes-Benz EQE" and got == []
