"""Text analysers: text -> index terms, for BM25. Each word by its script: Hangul -> Korean, the rest -> English.

    >>> a = default_analyzer()
    >>> a.analyze("캐리비안의 해적 시리즈중 제일 관객수가 많은게 뭐야?")
    ['캐리비안', '해적', '시리즈', '중', '관객', '수', '많', '것']
    >>> a.analyze("Which battles occurred first?")
    ['battl', 'occur', 'first']
    >>> a.analyze("허깅페이스의 Transformers 라이브러리")      # the term an English query "transformer" has
    ['허깅페이스', 'transform', '라이브러리']

`MultiAnalyzer` routes by script, the same way for a chunk and for a query whatever their language: the
Hangul of a text goes to the Korean analyser (Kiwi reads the whole text, for context), every other word
or part of a word (Latin, numbers, hanja) to the English analyser. So an English word in a Korean chunk
and a Korean word in an English chunk give the terms a query in the other language asks for. Indexes
built before (routing each text by its detected language: Latin words in Korean text unstemmed) are
still searched that way: the manifest names the analyser, `analyzer_from_name` rebuilds it.

Korean (`KiwiAnalyzer`): kiwipiepy morphemes; content morphemes written in Hangul are kept -- nouns (NN*),
verb and adjective stems (VV, VA), roots (XR) -- while particles, endings, copulas, suffixes and
punctuation are dropped. (Routing by language, Kiwi also kept foreign words (SL, lower-cased), numbers
(SN), hanja (SH) and its URL/e-mail/serial tokens (W_*).)

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
here).

`BigramAnalyzer` is the Korean fallback when kiwipiepy is not installed: Hangul runs become
overlapping character bigrams.

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

from gaji.text.lang import HANGUL, detect_lang, has_hangul
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
SCRIPT_ROUTING = "by-script-1"  # bump when what goes to which analyser changes (MultiAnalyzer)


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


_HANGUL = HANGUL
_HANGUL_RE = re.compile(f"[{_HANGUL}]")
_NON_HANGUL_WORD_RE = re.compile(f"[^\\W_{_HANGUL}]+")  # a word, or the part of it that is not Hangul

Positioned = list[tuple[int, str]]  # (character offset in the analysed text, term)


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

    def non_hangul_terms(self, text: str) -> Positioned:
        """Terms of the words (or parts of words) of `text` (NFC, possessives dropped) that are not Hangul,
        with their offsets: "iPhone과" gives the term of "iPhone"."""
        out: Positioned = []
        for m in _NON_HANGUL_WORD_RE.finditer(text):
            for w in _WORD_RE.findall(fold(m.group())):
                t = self.term(w)
                if t:
                    out.append((m.start(), t))
        return out


# ---------------------------------------------------------------------------------------------
# Korean
# ---------------------------------------------------------------------------------------------

_KIWI_KEEP = frozenset({"NNG", "NNP", "NNB", "VV", "VA", "XR", "SL", "SN", "SH"})
_KIWI_HANGUL_KEEP = frozenset({"NNG", "NNP", "NNB", "VV", "VA", "XR"})  # routing by script: the Hangul tags


def _script_match_options() -> int:
    """Kiwi's default patterns without URL / e-mail / hashtag / mention / serial (see hangul_terms_many)."""
    from kiwipiepy import Match

    return Match.ALL & ~(Match.URL | Match.EMAIL | Match.HASHTAG | Match.MENTION | Match.SERIAL)
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


def kiwi_lock() -> threading.Lock:
    """The lock every call on the shared Kiwi instance (`get_kiwi`) is made under: one Kiwi object is not safe to
    call from two threads at once."""
    return _kiwi_call_lock


def kiwi_tokens(text: str) -> list | None:
    """Kiwi's tokens of `text` (form, tag, start, len), tokenized under the call lock; None without kiwipiepy."""
    if not kiwi_available():
        return None
    kiwi = get_kiwi()
    with _kiwi_call_lock:
        return list(kiwi.tokenize(text))


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

    # -- the Hangul side of MultiAnalyzer's routing by script ----------------------------------------
    @staticmethod
    def _hangul_terms(tokens) -> Positioned:
        out: Positioned = []
        for tok in tokens:
            if tok.tag.split("-", 1)[0] in _KIWI_HANGUL_KEEP and _HANGUL_RE.search(tok.form):
                out.extend((tok.start, part) for part in tok.form.split())
        return out

    def hangul_terms_many(self, texts: Sequence[str]) -> list[Positioned]:
        """Content morphemes written in Hangul of each text (Kiwi sees the whole text, for context), with
        offsets. Everything else (Latin words, numbers, hanja, URLs) is the English analyser's, so Kiwi's
        URL / e-mail / hashtag / mention / serial patterns are off: "#김치" gives 김치."""
        if not texts:
            return []
        kiwi = get_kiwi()
        with _kiwi_call_lock:
            results = list(kiwi.tokenize(list(texts), match_options=_script_match_options()))
        return [self._hangul_terms(toks) for toks in results]


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

    def hangul_terms_many(self, texts: Sequence[str]) -> list[Positioned]:
        """Character bigrams of each text's Hangul runs, with offsets (the rest is the English analyser's)."""
        out = []
        for text in texts:
            terms: Positioned = []
            for m in _HANGUL_WORD_RE.finditer(text):
                run, at = m.group(), m.start()
                if len(run) == 1:
                    terms.append((at, run))
                else:
                    terms.extend((at + i, run[i : i + 2]) for i in range(len(run) - 1))
            out.append(terms)
        return out


_HANGUL_WORD_RE = re.compile(f"[{_HANGUL}]+")


# ---------------------------------------------------------------------------------------------
# Routing: by script (now), by the text's language (indexes built before)
# ---------------------------------------------------------------------------------------------


class MultiAnalyzer:
    """The BM25 analyser: Korean and English in one text, analysed by script (`routing` "script"), or each
    text by its detected language (`routing` "lang", what indexes built before routing by script used).

    By script, every text -- chunk or query, whatever its language -- goes through the same two passes:
    its Hangul through the Korean analyser (Kiwi sees the whole text; its Hangul content morphemes are
    kept) and every other word, or part of a word ("iPhone" of "iPhone과"), through the English analyser
    (folded, stopwords dropped, stemmed; numbers and hanja too). So "Transformers" in a Korean chunk is
    the term ``transform`` that the English query "transformer" asks for, and 김치찌개 in an English chunk
    is what a Korean query asks for. Terms come in text order.

    By language (kept so that an index built that way is searched the way it was built): a Korean text
    goes to Kiwi whole (Latin words kept whole, lower-cased, not stemmed), any other text to the English
    analyser, its Hangul words one by one to the Korean analyser.
    """

    def __init__(self, korean: Analyzer, english: EnglishAnalyzer | None = None, routing: str = "script"):
        if routing not in ("script", "lang"):
            raise ValueError(f"routing must be 'script' or 'lang', not {routing!r}")
        self.korean = korean
        self.english = english or EnglishAnalyzer()
        self.routing = routing
        parts = f"(ko={korean.name}; en={self.english.name})"
        self.name = f"multi-{SCRIPT_ROUTING}{parts}" if routing == "script" else f"multi{parts}"

    def warmup(self) -> None:
        """Load heavy resources now (Kiwi's model, ~2 s) rather than on the first text."""
        if isinstance(self.korean, KiwiAnalyzer):
            get_kiwi()

    def analyze(self, text: str, lang: str | None = None) -> list[str]:
        """The terms of `text`. `lang` (routing by language only): its language, instead of detecting it."""
        if self.routing == "script":
            return next(iter(self.analyze_many([text])))
        text = normalize_text(text)
        lang = lang or detect_lang(text)
        if lang == "ko":
            return self.korean.analyze(text)
        return self._english(text)

    def _english(self, text: str) -> list[str]:
        if not has_hangul(text):
            return self.english.analyze(text)
        # English text quoting Korean words: those words go to the Korean analyser
        out: list[str] = []
        for w in self.english.words(text):
            if has_hangul(w):
                out.extend(self.korean.analyze(w))
            else:
                t = self.english.term(w)
                if t:
                    out.append(t)
        return out

    def analyze_many(self, texts: Sequence[str], langs: Sequence[str] | None = None) -> Iterator[list[str]]:
        """Analyse many texts (Korean batched); results in input order. `langs`: as in `analyze`."""
        texts = [normalize_text(t) for t in texts]
        if self.routing == "script":
            yield from self._by_script(texts)
            return
        langs = list(langs) if langs is not None else [detect_lang(t) for t in texts]
        ko_idx = [i for i, l in enumerate(langs) if l == "ko"]
        ko_terms = dict(zip(ko_idx, self.korean.analyze_many(texts[i] for i in ko_idx)))
        for i, t in enumerate(texts):
            yield ko_terms[i] if i in ko_terms else self._english(t)

    def _by_script(self, texts: list[str]) -> Iterator[list[str]]:
        texts = [_POSSESSIVE_RE.sub("", t) for t in texts]  # before both passes: their offsets agree
        with_hangul = [i for i, t in enumerate(texts) if _HANGUL_RE.search(t)]
        hangul: dict[int, Positioned] = {}
        for start in range(0, len(with_hangul), 64):
            idx = with_hangul[start : start + 64]
            hangul.update(zip(idx, self.korean.hangul_terms_many([texts[i] for i in idx])))  # type: ignore[attr-defined]
        for i, t in enumerate(texts):
            terms = self.english.non_hangul_terms(t)
            if i in hangul:
                terms = sorted(terms + hangul[i], key=lambda p: p[0])  # stable: a word's parts keep their order
            yield [term for _, term in terms]


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
    """Rebuild the analyser a manifest names; IndexUnusableError when this install cannot reproduce it.
    An index built before routing by script gets the analyser that routes by language, the way it was built:
    its terms and its queries' terms then agree (English words in its Korean chunks stay unstemmed; a
    rebuild gives it the routing by script)."""
    from gaji.errors import IndexUnusableError

    for kind in ("kiwi", "bigram"):
        if kind == "kiwi" and not kiwi_available():
            continue
        cand = default_analyzer(kind)
        if cand.name == name:
            return cand
        legacy = MultiAnalyzer(cand.korean, cand.english, routing="lang")
        if legacy.name == name:
            return legacy
    current = default_analyzer("auto").name
    raise IndexUnusableError(
        f"the index was built with analyser {name!r}, but this install provides {current!r}; "
        "rebuild the index with `gaji index build` (or install the kiwipiepy version it names)"
    )


BY_SCRIPT_PREFIX = "multi-by-script-"  # every name of MultiAnalyzer routing by script starts so, whatever its version


def routing_note(name: str | None) -> str | None:
    """One line for an index whose manifest names analyser `name`: what a rebuild changes when its BM25 was
    built routing by language; None when it routes by script (or has no BM25). The caller adds how to
    rebuild it (`gaji.index.manifest.rebuild_hint`)."""
    if not name or name.startswith(BY_SCRIPT_PREFIX):
        return None
    return ("BM25 reads this index by language, the way it was built; a rebuild switches it to analysis by "
            "script, which finds English words inside Korean text and the reverse")
