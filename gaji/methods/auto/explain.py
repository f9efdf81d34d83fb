"""Questions that want a paragraph, not a span: told from the question's text alone.

A legal or enterprise question often sets out facts, then asks what follows from them, or asks several things at
once ("갑은 어떤 처벌을 받게 되는가?" after a story; "…취해야 할 조치는 무엇이며, 대상 오염물질은 무엇인가?"). A span
cut from a one-retrieval reply ("이 신청을 거부해야 합니다." for a question that asks how the registrar must act *and*
what punishment follows) answers neither part. `auto` answers such a question with a cited paragraph (OneR's long
style) and keeps it whole.

A question wants a paragraph when it

- **asks several things**: two question words in separate clauses ("…무엇이며, …무엇인가?", "…얼마나 연장할 수
  있으며, … 어떤 절차를 따라야 하는가?"; "What must X do, and how …?"; two questions, each opening with its question
  word in English); or
- **follows a story and asks what follows from it**: two sentences or more, the last asking how, why, or which
  measure, punishment, duty, procedure or effect ("…어떻게 처벌되는가?", "…어떤 의무를 가지는가?"; "How should …?").

A one-sentence factoid question ("훈민정음은 몇 년에 반포되었나요?", "Who directed Oldboy?"), a comparison, and a
story that ends on a plain who/when/where ("…비용은 누가 부담하는가?") keep the short answer.

    >>> wants_paragraph("갑이 을의 중요한 계약 문서를 고의로 손괴했다.\\n갑은 어떤 처벌을 받게 되는가?", "ko")
    'story'
    >>> wants_paragraph("대기오염경보 때 취해야 할 조치는 무엇이며, 대상 오염물질은 무엇인가?", "ko")
    'several'
    >>> wants_paragraph("훈민정음은 몇 년에 반포되었나요?", "ko")
    ''
"""
from __future__ import annotations

import re

from gaji.methods.toq.decomposer import EN_QUESTION_WORD
from gaji.text.sentences import split_sentences

# Korean question words, each counted once per clause
_KO_ASK = re.compile(r"무엇|무슨|어떤|어떻게|어느|누구|누가|언제|어디|몇|얼마|왜")
# a clause joined to the next one: "…무엇이며, …", "…해야 하고, …", "…인가? …"
_KO_CLAUSE = re.compile(r"(?:며|고|이며|으며|인가|는가|나|까)\s*[,?？]\s*")
# what follows from a story: how, why, or a measure, punishment, duty, procedure, effect, liability, requirement
_KO_FOLLOWS = re.compile(r"어떻게|왜|어떤\s*(?:조치|처벌|형사처벌|책임|법적|의무|절차|효과|요건|권리|제재|불이익|처분|"
                         r"보호|규정|기준|방법|사유|이유|내용)|무엇을\s*해야|설명")
_EN_CLAUSE = re.compile(r"[,;]\s*and\s+(?=(?:what|which|who|when|where|why|how)\b)", re.I)
# an English question sentence opens with its question word (a title ending in "?" inside a question does not)
_EN_OPENS = re.compile(r"^\W*(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)
_EN_FOLLOWS = re.compile(r"\bwhy\b|\bexplain\b|\bdescribe\b|\bhow\b(?!\s+(?:many|much|old|long|far|tall|big|large|"
                         r"often|high|deep|wide|fast))|\bwhat\s+(?:legal\s+)?(?:steps|measures|penalt|punishment|"
                         r"sanction|obligations|duties|procedure|rights|consequences|requirements|liabilit)", re.I)


def wants_paragraph(question: str, lang: str) -> str:
    """Why `question` wants a paragraph: "several" (it asks several things), "story" (it asks what follows from the
    facts it sets out), or "" (a short answer)."""
    q = question.strip()
    if not q:
        return ""
    sentences = split_sentences(q)
    last = sentences[-1] if sentences else q
    ko = lang == "ko"
    ask, clause, follows = (_KO_ASK, _KO_CLAUSE, _KO_FOLLOWS) if ko else (EN_QUESTION_WORD, _EN_CLAUSE, _EN_FOLLOWS)
    # the asking part: the last sentence, and the one before it when that one asks too ("…수반하는가? …있는가?")
    asking = [s for s in sentences[-2:] if s.rstrip().endswith(("?", "？")) and (ko or _EN_OPENS.match(s))] or [last]
    parts = [p for s in asking for p in clause.split(s) if p.strip()]
    if sum(1 for p in parts if ask.search(p)) >= 2 or len(asking) >= 2:
        return "several"
    if len(sentences) >= 2 and follows.search(last):
        return "story"
    return ""
