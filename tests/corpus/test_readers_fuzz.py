"""Property-based fuzzing of the corpus readers (hypothesis): any bytes as a .jsonl, .json (KorQuAD or an
array), .txt or .md file -- and any JSON shaped almost like a valid corpus -- give documents or an
InputError naming the file, never another exception; with skip_bad, bad records are reported instead."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gaji.corpus.readers import read_documents
from gaji.errors import InputError

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids,
                                                                                        max_size=3), max_leaves=8)
# records that are nearly right: the real field names with any values, plus stray fields
records = st.fixed_dictionaries({}, optional={"id": values, "title": values, "text": values | st.text(max_size=60),
                                              "extra": values})
korquad = st.fixed_dictionaries({"data": st.lists(st.fixed_dictionaries({}, optional={
    "title": values, "paragraphs": st.lists(st.fixed_dictionaries({}, optional={"context": values | st.text(),
                                                                                 "qas": values}), max_size=3) | values}),
    max_size=3)}, optional={"version": values})


def _read(suffix: str, data: bytes, skip_bad: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"corpus{suffix}"
        p.write_bytes(data)
        try:
            docs, report = read_documents(p, skip_bad=skip_bad)
        except InputError as e:
            assert str(p) in str(e)
            return
        assert docs and all(d.text.strip() for d in docs)
        assert report.documents == len(docs)


@FUZZ
@given(st.sampled_from([".jsonl", ".json", ".txt", ".md"]), st.binary(max_size=300), st.booleans())
def test_any_bytes_in_any_format(suffix, data, skip_bad):
    _read(suffix, data, skip_bad)


@FUZZ
@given(st.lists(records, max_size=5), st.booleans())
def test_nearly_valid_jsonl_lines(rows, skip_bad):
    _read(".jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8"), skip_bad)


@FUZZ
@given(korquad | st.lists(records, max_size=4) | values, st.booleans())
def test_nearly_valid_json_and_korquad(obj, skip_bad):
    _read(".json", json.dumps(obj, ensure_ascii=False).encode("utf-8"), skip_bad)


@pytest.mark.parametrize("suffix", [".txt", ".md"])
@FUZZ
@given(text=st.text(max_size=200))
def test_any_text_file(suffix, text):
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate cannot be in a file
        return
    _read(suffix, data, False)


# --- document files: mutated DOCX/PPTX/XLSX/HWPX/HTML/PDF/HWP seeds (gaji_lab.bench.fuzz_readers) --------------------
_SEEDS: dict = {}


def _lab_fuzz():
    """The seed writer and mutator are the lab's (`gaji bench fuzz-readers`); README command 2 installs the lab."""
    return pytest.importorskip("gaji_lab.bench.fuzz_readers", reason="the lab is not installed: pip install -e ./lab")


def _seeds() -> dict:
    if not _SEEDS:
        make_seeds = _lab_fuzz().make_seeds

        folder = Path(tempfile.mkdtemp(prefix="gaji-fuzz-seeds-"))
        _SEEDS.update({k: (p.suffix, p.read_bytes()) for k, p in make_seeds(folder).items()})
    return _SEEDS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["docx", "pptx", "xlsx", "hwpx", "html", "pdf", "hwp", "md"]), st.integers(0, 2 ** 32 - 1))
def test_mutated_documents_are_read_or_refused_with_a_reason(kind, seed):
    import random

    fuzz = _lab_fuzz()
    mutate, read_outcome = fuzz.mutate, fuzz.read_outcome
    from gaji.corpus.formats import ReadLimits
    from gaji.corpus.formats.worker import read_in_process

    seeds = _seeds()
    if kind not in seeds:  # the HWP seed is the test fixture
        return
    suffix, data = seeds[kind]
    limits = ReadLimits(max_seconds=10)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"mutant{suffix}"
        p.write_bytes(mutate(data, kind, random.Random(seed)))
        outcome, detail = read_outcome(p, lambda path, rel: read_in_process(path, rel, limits))
    assert outcome != "failure", detail
    if outcome == "refused":
        assert detail.strip() and "Traceback" not in detail
