"""Keyword labels (gaji/expand/labels.py): reading teacher labels, labelling resumably, the keywords of a query."""
from __future__ import annotations

import json

import pytest

from gaji.errors import ConfigError, InputError
from gaji.expand.keywords import Morpheme, TaggedQuery
from gaji.expand.labels import label_queries, query_keywords, read_tagged


def _tagged(query: str) -> TaggedQuery:
    """The first word of the query is the keyword."""
    words = query.split()
    ms, pos = [], 0
    for w in words:
        start = query.index(w, pos)
        ms.append(Morpheme(w, "SL", start, start + len(w)))
        pos = start + len(w)
    return TaggedQuery(query, ms, ["KB"] + ["O"] * (len(ms) - 1), [words[0]], "en")


class Teacher:
    def __init__(self, fail=(), none=()):
        self.asked: list[str] = []
        self.fail, self.none = set(fail), set(none)

    def label(self, q: str) -> TaggedQuery:
        self.asked.append(q)
        if q in self.fail:
            raise RuntimeError("the model said nothing useful")
        t = _tagged(q)
        if q in self.none:
            t.labels = ["O"] * len(t.labels)
        return t


def test_label_queries_appends_skips_what_is_there_and_counts(tmp_path):
    out = tmp_path / "labels.jsonl"
    first = label_queries(Teacher(fail={"broken query"}), ["Seoul is big", "broken query", "Seoul is big"], out)
    assert first["labelled"] == 1 and first["failed"] == 1 and first["skipped"] == 1
    teacher = Teacher(none={"nothing here"})
    again = label_queries(teacher, ["Seoul is big", "Busan port", "nothing here"], out, parallel=2)
    assert teacher.asked == ["Busan port", "nothing here"]  # the labelled one is not asked again
    assert again["labelled"] == 2 and again["skipped"] == 1 and again["no_keyword_found"] == 1
    back = read_tagged([out])
    assert [t.query for t in back] == ["Seoul is big", "Busan port", "nothing here"]
    assert back[1].keywords == ["Busan"] and back[1].labels == ["KB", "O"]


def test_a_bad_labelled_query_names_file_and_line(tmp_path):
    p = tmp_path / "l.jsonl"
    good = _tagged("Seoul is big").to_dict()
    p.write_text(json.dumps(good) + "\n" + json.dumps({**good, "labels": ["KB"]}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad labelled query") as e:
        read_tagged([p])
    assert (e.value.path, e.value.line) == (str(p), 2)



def test_query_keywords_needs_a_tagger_or_a_teacher(monkeypatch):
    monkeypatch.delenv("GAJI_TAGGER", raising=False)
    with pytest.raises(ConfigError, match="--tagger DIR"):
        query_keywords("경복궁은 언제 지어졌나?")
    toks, labels = query_keywords("Seoul is big", llm='scripted:{"keywords": ["Seoul"]}')
    assert [m.form for m in toks][:1] == ["Seoul"] and labels[0] == "KB" and "KI" not in labels
