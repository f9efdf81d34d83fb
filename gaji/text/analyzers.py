"""Text analysers: text -> index terms, for BM25. One per language, routed by `detect_lang`.

    >>> a = default_analyzer()
    >>> a.analyze("캐리비안의 해적 시리즈중 제일 관객수가 많은게 뭐야?")
    ['캐리비안', '해적', '시리즈', '중', '관객', '수', '많', '것']
    >>> a.analyze("Which battles occurred first?")
    ['battl', 'occur', 'first']

Korean (`KiwiAnalyzer`): kiwipiepy morphemes; content morphemes are kept -- nouns (NN*), verb and
adjective stems (VV, VA), roots (XR), foreign words (SL, lower-cased), numbers (SN), hanja (SH) and
Kiwi's URL/e-mail/serial tokens (W_*) -- while particles, endings, copulas, suffixes and punctuation are
dropped. English words inside Korean text stay whole and lower-cased (they are *not* stemmed).

Multiword proper nouns: Kiwi's default multiword dictionary (WikiData names) turns
"캐리비안의 해적" into ONE token "캐리비안의 해적" (with a space and the particle inside). We load Kiwi
with ``load_multi_dict=False`` so that it becomes 캐리비안 / 해적: (1) our lexical field is split on
whitespace, so a multiword token cannot stay whole anyway, and would leak the particle 의 into a term
("캐리비안의"); (2) a query that names only part of the title ("해적 시리즈") must still match; BM25 rewards
documents containing all the parts, which recovers most of the phrase's precision. Measured on the
shared dev data (BM25 recall@10, multiword terms joined with "_" when kept whole): KorQuAD (first
1,500 questions) 0.9940 split vs 0.9933 whole (1,004 multiword terms in the corpus); KoBLEX 0.9233
both (no multiword names occur). So: split.

English (`EnglishAnalyzer`): accents folded, lower-cased, split on non-alphanumerics, possessive 's
dropped, a short stopword list removed, then a Porter-style suffix-stripping stemmer (`stem`, written
here). Hangul words inside English text go to the Korean analyser.

`BigramAnalyzer` is the Korean fallback when kiwipiepy is not installed: Hangul runs become
overlapping character bigrams, other words are lower-cased.

Every analyser reads its input in NFC (`gaji.text.normalize.normalize_text`): a Korean text decomposed
into conjoining jamo (NFD, as macOS and some PDFs write it) gives the same terms as the precomposed one.

Every analyser has a `name` recorded in the index manifest: an index is only searched with the
analyser that built it (see gaji.index.manifest).
"""
from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from gaji.text.lang import detect_lang
from gaji.text.normalize import normalize_text

__all__ = [
    "Analyzer",
    "EnglishAnalyzer",
    "KiwiAnalyzer",
    "BigramAnalyzer",
    "MultiAnalyzer",
    "default_analyzer",
    "analyzer_from_name",
    "kiwi_available",
    "get_kiwi",
    "stem",
    "STOPWORDS",
]

ENGLISH_VERSION = "en-porter-1"
BIGRAM_VERSION = "ko-bigram-1"
KIWI_SCHEME = "ko-kiwi-1"  # bump when the kept tags or normalisation change


class Analyzer(Protocol):
    """text -> list of index terms. `name` identifies the exact behaviour (stored in manifests)."""

    name: str

    def analyze(self, text: str) -> list[str]: ...

    def analyze_many(self, texts: Iterable[str]) -> Iterator[list[str]]: ...


# ---------------------------------------------------------------------------------------------
# English
# ---------------------------------------------------------------------------------------------

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves also s t isn aren wasn weren doesn don didn hasn haven hadn
    couldn wouldn shouldn""".split()
)

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem_: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in the stem."""
    m, prev_vowel = 0, False
    for i in range(len(stem_)):
        cons = _is_consonant(stem_, i)
        if cons and prev_vowel:
            m += 1
        prev_vowel = not cons
    return m


def _has_vowel(stem_: str) -> bool:
    return any(not _is_consonant(stem_, i) for i in range(len(stem_)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """consonant-vowel-consonant ending, the last not w/x/y (e.g. hop, not snow)."""
    n = len(word)
    return (
        n >= 3
        and _is_consonant(word, n - 1)
        and not _is_consonant(word, n - 2)
        and _is_consonant(word, n - 3)
        and word[-1] not in "wxy"
    )


_STEP2 = sorted(
    {
        "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
        "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
        "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
        "iviti": "ive", "biliti": "ble", "logi": "log",
    }.items(),
    key=lambda kv: -len(kv[0]),
)
_STEP3 = sorted(
    {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}.items(),
    key=lambda kv: -len(kv[0]),
)
_STEP4 = sorted(
    "al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize".split(), key=len, reverse=True
)


def _replace_suffix(word: str, table: list[tuple[str, str]], min_m: int) -> str:
    for suffix, repl in table:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + repl if _measure(base) >= min_m else word
    return word


def stem(word: str) -> str:
    """Porter-style stemmer (steps 1a-5b of Porter 1980) for lower-case ASCII words.

    Words of one or two letters, and anything that is not plain a-z, are returned unchanged.
    """
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    w = word
    # step 1a: plurals
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # step 1b: -eed, -ed, -ing
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suf in ("ed", "ing"):
            if w.endswith(suf) and _has_vowel(w[: -len(suf)]):
                w = w[: -len(suf)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif _double_consonant(w) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    # step 1c: y -> i
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    # steps 2 and 3: double suffixes
    w = _replace_suffix(w, _STEP2, 1)
    w = _replace_suffix(w, _STEP3, 1)
    # step 4: single suffixes, on longer stems
    for suf in _STEP4:
        if w.endswith(suf):
            base = w[: -len(suf)]
            if _measure(base) > 1 and (suf != "ion" or base.endswith(("s", "t"))):
                w = base
            break
    # step 5: final e, double l
    if w.endswith("e"):
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            w = base
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


_WORD_RE = re.compile(r"[^\W_]+")
_POSSESSIVE_RE = re.compile(r"(?<=\w)['’]s\b", re.IGNORECASE)


def fold(text: str) -> str:
    """Lower-case and strip accents from Latin letters (Pokémon -> pokemon); Hangul is left intact."""
    text = text.lower()
    if text.isascii():
        return text
    out = []
    for ch in text:
        if ord(ch) < 0x250 and not ch.isascii():  # Latin-1 / Latin Extended: decompose, drop marks
            ch = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(ch)
    return "".join(out)


def _has_hangul(s: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" or "\u1100" <= c <= "\u11ff" or "\u3130" <= c <= "\u318f" for c in s)


class EnglishAnalyzer:
    """Lower-case, tokenise, drop stopwords, Porter-style stem."""

    name = ENGLISH_VERSION

    def __init__(self, stopwords: frozenset[str] = STOPWORDS, stemming: bool = True):
        self.stopwords = stopwords
        self.stemming = stemming

    def words(self, text: str) -> list[str]:
        """Folded words before stopword removal and stemming."""
        return _WORD_RE.findall(fold(_POSSESSIVE_RE.sub("", normalize_text(text))))

    def term(self, word: str) -> str | None:
        if word in self.stopwords:
            return None
        return stem(word) if self.stemming else word

    def analyze(self, text: str) -> list[str]:
        out = []
        for w in self.words(text):
            t = self.term(w)
            if t:
                out.append(t)
        return out

    def analyze_many(self, texts: Iterable[str]) -> Iterator[list[str]]:
        for t in texts:
            yield self.analyze(t)


# ---------------------------------------------------------------------------------------------
# Korean
# ---------------------------------------------------------------------------------------------

_KIWI_KEEP = frozenset({"NNG", "NNP", "NNB", "VV", "VA", "XR", "SL", "SN", "SH"})
_kiwi = None
_kiwi_lock = threading.Lock()


def kiwi_available() -> bool:
    try:
        import kiwipiepy  # noqa: F401
    except ImportError:
        return False
    return True


def get_kiwi():
    """The process-wide Kiwi instance (created on first use; ~2 s). Use it under `kiwi_lock()`."""
    global _kiwi
    with _kiwi_lock:
        if _kiwi is None:
            from kiwipiepy import Kiwi

            # worker threads are needed for batch tokenize (analyze_many): one per core (measured 2x with
            # 2 workers on 2 cores; -1 'auto' measured no faster than 1). GAJI_KIWI_THREADS overrides.
            workers = int(os.environ.get("GAJI_KIWI_THREADS") or min(8, os.cpu_count() or 1))
            k = Kiwi(num_workers=max(1, workers), load_multi_dict=False)
            k.tokenize("")  # finish its lazy initialisation now
            _kiwi = k
        return _kiwi


_kiwi_call_lock = threading.Lock()


def _keep_kiwi_token(form: str, tag: str) -> str | None:
    base = tag.split("-", 1)[0]  # kiwi marks irregular conjugations as VV-I / VA-R
    if base in _KIWI_KEEP or base.startswith("W_"):
        return form.lower() if base in ("SL", "W_URL", "W_EMAIL", "W_HASHTAG", "W_MENTION", "W_SERIAL") else form
    return None


class KiwiAnalyzer:
    """Korean content morphemes with kiwipiepy (see the module docstring for what is kept)."""

    def __init__(self) -> None:
        import kiwipiepy

        self.name = f"{KIWI_SCHEME}(kiwipiepy {kiwipiepy.__version__}, multi_dict=off)"

    def _terms(self, tokens) -> list[str]:
        out = []
        for tok in tokens:
            form = _keep_kiwi_token(tok.form, tok.tag)
            if form:
                out.extend(form.split())  # never emit a term with a space in it
        return out

    def analyze(self, text: str) -> list[str]:
        if not text.strip():
            return []
        kiwi = get_kiwi()
        with _kiwi_call_lock:
            tokens = kiwi.tokenize(normalize_text(text))
        return self._terms(tokens)

    def analyze_many(self, texts: Iterable[str]) -> Iterator[list[str]]:
        kiwi = get_kiwi()
        batch: list[str] = []
        for t in texts:
            batch.append(normalize_text(t))
            if len(batch) >= 64:
                yield from self._batch(kiwi, batch)
                batch = []
        if batch:
            yield from self._batch(kiwi, batch)

    def _batch(self, kiwi, batch: list[str]) -> list[list[str]]:
        with _kiwi_call_lock:
            results = list(kiwi.tokenize(batch))
        return [self._terms(toks) for toks in results]


_HANGUL_RUN_RE = re.compile(r"[\uac00-\ud7a3]+")


class BigramAnalyzer:
    """Fallback for Korean without kiwipiepy: Hangul character bigrams, other words lower-cased."""

    name = BIGRAM_VERSION

    def analyze(self, text: str) -> list[str]:
        out: list[str] = []
        for word in _WORD_RE.findall(fold(normalize_text(text))):
            pos = 0
            for m in _HANGUL_RUN_RE.finditer(word):
                if m.start() > pos:
                    out.append(word[pos : m.start()])
                run = m.group()
                if len(run) == 1:
                    out.append(run)
                else:
                    out.extend(run[i : i + 2] for i in range(len(run) - 1))
                pos = m.end()
            if pos < len(word):
                out.append(word[pos:])
        return out

    def analyze_many(self, texts: Iterable[str]) -> Iterator[list[str]]:
        for t in texts:
            yield self.analyze(t)


# ---------------------------------------------------------------------------------------------
# Routing by language
# ---------------------------------------------------------------------------------------------


class MultiAnalyzer:
    """Analyse each text with the analyser of its language (given, or `detect_lang`)."""

    def __init__(self, korean: Analyzer, english: EnglishAnalyzer | None = None):
        self.korean = korean
        self.english = english or EnglishAnalyzer()
        self.name = f"multi(ko={korean.name}; en={self.english.name})"

    def warmup(self) -> None:
        """Load heavy resources now (Kiwi's model, ~2 s) rather than on the first text."""
        if isinstance(self.korean, KiwiAnalyzer):
            get_kiwi()

    def analyze(self, text: str, lang: str | None = None) -> list[str]:
        text = normalize_text(text)
        lang = lang or detect_lang(text)
        if lang == "ko":
            return self.korean.analyze(text)
        return self._english(text)

    def _english(self, text: str) -> list[str]:
        if not _has_hangul(text):
            return self.english.analyze(text)
        # English text quoting Korean words: those words go to the Korean analyser
        out: list[str] = []
        for w in self.english.words(text):
            if _has_hangul(w):
                out.extend(self.korean.analyze(w))
            else:
                t = self.english.term(w)
                if t:
                    out.append(t)
        return out

    def analyze_many(self, texts: Sequence[str], langs: Sequence[str] | None = None) -> Iterator[list[str]]:
        """Analyse many texts (batched for Korean); results in input order."""
        texts = [normalize_text(t) for t in texts]
        langs = list(langs) if langs is not None else [detect_lang(t) for t in texts]
        ko_idx = [i for i, l in enumerate(langs) if l == "ko"]
        ko_terms = dict(zip(ko_idx, self.korean.analyze_many(texts[i] for i in ko_idx)))
        for i, t in enumerate(texts):
            yield ko_terms[i] if i in ko_terms else self._english(t)


def default_analyzer(korean: str = "auto") -> MultiAnalyzer:
    """The standard analyser: Kiwi for Korean (bigrams when kiwipiepy is missing or korean='bigram')."""
    if korean not in ("auto", "kiwi", "bigram"):
        from gaji.errors import ConfigError

        raise ConfigError(f"unknown Korean analyser {korean!r}; use auto, kiwi or bigram")
    if korean == "bigram" or (korean == "auto" and not kiwi_available()):
        return MultiAnalyzer(BigramAnalyzer())
    return _cached_kiwi_multi()


_multi_cache: dict[str, MultiAnalyzer] = {}


def _cached_kiwi_multi() -> MultiAnalyzer:
    if "kiwi" not in _multi_cache:
        _multi_cache["kiwi"] = MultiAnalyzer(KiwiAnalyzer())
    return _multi_cache["kiwi"]


def analyzer_from_name(name: str) -> MultiAnalyzer:
    """Rebuild the analyser a manifest names; IndexUnusableError when this install cannot reproduce it."""
    from gaji.errors import IndexUnusableError

    for kind in ("kiwi", "bigram"):
        if kind == "kiwi" and not kiwi_available():
            continue
        cand = default_analyzer(kind)
        if cand.name == name:
            return cand
    current = default_analyzer("auto").name
    raise IndexUnusableError(
        f"the index was built with analyser {name!r}, but this install provides {current!r}; "
        "rebuild the index with `gaji index build` (or install the kiwipiepy version it names)"
    )
