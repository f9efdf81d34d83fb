"""ROUGE-L (F-measure from the longest common subsequence), for long-form answers.

    P = LCS / len(prediction tokens), R = LCS / len(reference tokens), F = 2PR / (P + R)

with the maximum F over the references (ASQA has 2 long answers, ODSum 4). β = 1, as in the
widely used `rouge-score` package's `rougeL` F-measure.

Tokenisation must work for Korean, where whitespace words carry particles (법원은 / 법원이):

- Korean text (any Hangul): Kiwi morphemes (`kiwipiepy`), lower-cased, punctuation dropped;
  when Kiwi is unavailable, whitespace words with Hangul words split into syllables;
- other text: lower-cased Unicode word tokens (`\\w+`), so digits and accented letters survive.

The LCS length uses the bit-parallel algorithm of Allison & Dix / Hyyrö (one big-integer
operation per token of the second sequence), so long answers (hundreds of tokens) are cheap.
"""
from __future__ import annotations

import re
import threading
from typing import Iterable

from gaji.text.lang import has_hangul

_WORD = re.compile(r"\w+", re.UNICODE)
_kiwi = None
_kiwi_lock = threading.Lock()
_kiwi_failed = False


def _get_kiwi():
    """The analyser shared with the index (gaji.text.analyzers.get_kiwi), or our own; None if absent.

    Returns (kiwi, call_lock): calls on one Kiwi object are serialised with the owner's lock."""
    global _kiwi, _kiwi_failed
    try:
        from gaji.text import analyzers

        kiwi = analyzers.get_kiwi()
        lock_fn = getattr(analyzers, "kiwi_lock", None)
        return kiwi, (lock_fn() if callable(lock_fn) else getattr(analyzers, "_kiwi_call_lock", _kiwi_lock))
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 - kiwipiepy missing or broken: fall back to syllables
        return None, _kiwi_lock
    with _kiwi_lock:
        if _kiwi is None and not _kiwi_failed:
            try:
                from kiwipiepy import Kiwi

                _kiwi = Kiwi(load_multi_dict=False)
            except Exception:  # noqa: BLE001
                _kiwi_failed = True
    return _kiwi, _kiwi_lock


def tokenize_fallback(text: str) -> list[str]:
    """Word tokens; words containing Hangul are split into syllables."""
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        out.extend(list(w) if has_hangul(w) else [w])
    return out


def tokenize(text: str, use_kiwi: bool = True) -> list[str]:
    """ROUGE tokens: Kiwi morphemes for Korean text, word tokens otherwise."""
    text = text or ""
    if has_hangul(text) and use_kiwi:
        kiwi, lock = _get_kiwi()
        if kiwi is not None:
            with lock:  # one analyser shared by eval worker threads
                toks = kiwi.tokenize(text)
            # drop punctuation/symbols (tags S*), keep foreign words, numbers and hanja (SL, SN, SH)
            return [t.form.lower() for t in toks if not t.tag.startswith("S") or t.tag in ("SL", "SN", "SH")]
    if has_hangul(text):
        return tokenize_fallback(text)
    return _WORD.findall(text.lower())


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, O(len(b)) big-int operations)."""
    if not a or not b:
        return 0
    if len(a) < len(b):
        a, b = b, a  # bits over the longer sequence, loop over the shorter
    masks: dict[str, int] = {}
    for i, tok in enumerate(a):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for tok in b:
        u = v & masks.get(tok, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def rouge_l_tokens(pred: list[str], ref: list[str]) -> float:
    lcs = lcs_length(pred, ref)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(pred), lcs / len(ref)
    return 2 * p * r / (p + r)


def rouge_l(prediction: str, references: Iterable[str], use_kiwi: bool = True) -> float | None:
    """ROUGE-L F, max over references; None when there is no reference."""
    refs = [r for r in references if r and r.strip()]
    if not refs:
        return None
    pred = tokenize(prediction, use_kiwi)
    return max(rouge_l_tokens(pred, tokenize(r, use_kiwi)) for r in refs)
