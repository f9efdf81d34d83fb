"""Prompts for a comparison answered by code (gaji/methods/compare.py): one short read per compared item, asking
only for the value that decides the comparison (a date or a number), which code then puts in order."""
from __future__ import annotations

from dataclasses import dataclass

from gaji.llm.prompts import ByLang, Prompt


@dataclass(frozen=True)
class ComparePrompts:
    # the value of one item: the plain reader's shape (documents in the system turn, the question alone in the
    # user turn), told to give only a date or only a number, or "unknown" when the documents do not say
    date: Prompt
    number: Prompt
    # a person's two dates, birth and death, for "Who lived longer, A or B?" (one read per item, not two)
    life: Prompt
    # the name a described item stands for ("Who is the director of Alien?")
    name: Prompt
    # a yes/no question asked of one item ("Is Cynthia Mort American?"), and the short value a "same" question
    # compares ("What is the country of Tony Gatlif?"), for gaji/methods/check.py
    yes_no: Prompt
    value: Prompt
    # whether two values read for two items are the same thing ("American" and "United States")
    same: Prompt
    # an item's sub-question, built by code from the question's own words: a date asked with the question's verb
    # ("When was A founded?", "A는 언제 설립되었나?"), an event's date ("When did A take place?"), or with no verb
    # to go on; a number asked as a count ("How many acts does A have?"), a measure ("What is the height of A?"),
    # or with no measure to go on
    date_verb: str
    date_event: str
    date_any: str
    number_count: str
    number_measure: str
    number_any: str
    life_dates: str
    # a described item's question (and a bridge entity's, gaji/methods/bridge.py): who it is (people), where
    # (places), or what it is
    resolve_who: str
    resolve_what: str
    resolve_where: str
    # the person in a role of a named item, for a choice among items by that person ("Which film has the director
    # who died later, A or B?" -> "Who is the director of A?")
    resolve_role: str
    # a yes/no or which-one question asked of one item, built by code (gaji/methods/check.py): the question put to
    # one item ("Which author is an economist? Is it Czesław Miłosz?"); "A와 B는 같은 해에 데뷔했나?" asks "A는 몇 년에
    # 데뷔했나?" and "A와 B의 RAM 용량은 같은가?" asks "A의 RAM 용량은 무엇인가?"; an English "same" question
    # asks the compared thing of each item ("What is the language of A?"), a year with date_verb ("When was A
    # released?"); value_when and value_what ask an item that is itself the compared value ("반기문이 유엔
    # 사무총장에 당선된 해는 언제인가?", "…무엇인가?")
    fits: str
    value_of: str
    value_when: str
    value_what: str
    # a choice the values left open (a tie at the precision read, a value not found), put to the reader once over
    # both items' passages with their names: it must answer with one of them
    choose: str
    # a Korean intersection's check: the question and the names both conditions' passages hold
    choose_among: str


_EN_DOCS = "\n{data_note}\nThe following are the given documents.\n\n{passages}"
_KO_DOCS = "\n{data_note}\n다음은 주어진 문서입니다.\n\n{passages}"

PROMPTS = ByLang(
    en=ComparePrompts(
        date=Prompt(
            system="Answer the question based on the given documents. Give only the date (for example "
            "\"8 October 1985\" or \"1896\"), no other words. If the documents do not give it, answer \"unknown\"."
            + _EN_DOCS,
            user="Question: {question}",
        ),
        number=Prompt(
            system="Answer the question based on the given documents. Give only the number with its unit (for "
            "example \"8,611 m\" or \"12\"), no other words. If the documents do not give it, answer \"unknown\"."
            + _EN_DOCS,
            user="Question: {question}",
        ),
        life=Prompt(
            system="Answer the question based on the given documents. Give only the two dates, birth and death (for "
            "example \"8 October 1885 – 12 May 1960\"), no other words. If the documents do not give them, answer "
            "\"unknown\"." + _EN_DOCS,
            user="Question: {question}",
        ),
        name=Prompt(
            system="Answer the question based on the given documents. Give only the name, no other words. If the "
            "documents do not give it, answer \"unknown\"." + _EN_DOCS,
            user="Question: {question}",
        ),
        yes_no=Prompt(
            system="Answer the question based on the given documents with only \"yes\" or \"no\", no other words. "
            "Answer \"no\" when the documents describe it otherwise (another kind of thing, another place, another "
            "job, another date). Answer \"unknown\" only when the documents say nothing about it." + _EN_DOCS,
            user="Question: {question}",
        ),
        value=Prompt(
            system="Answer the question based on the given documents in as few words as possible (a name, a "
            "place, a year or a number), no sentence. If the documents do not give it, answer \"unknown\"."
            + _EN_DOCS,
            user="Question: {question}",
        ),
        same=Prompt(
            system="Answer with only \"yes\" or \"no\".",
            user="Do \"{a}\" and \"{b}\" name the same {what}?",
        ),
        date_verb="When was {item} {verb}?",
        date_event="When did {item} {verb}?",
        date_any="What date does this question compare for {item}: {question}",
        number_count="How many {measure} does {item} have?",
        number_measure="What is the {measure} of {item}?",
        number_any="What number does this question compare for {item}: {question}",
        life_dates="When was {item} born, and when did {item} die?",
        resolve_who="Who is {item}?",
        resolve_what="What is {item}?",
        resolve_where="Where is {item}?",
        resolve_role="Who is the {role} of {item}?",
        fits="{question} Is it {item}?",
        value_of="What is the {what} of {item}?",
        value_when="When was {item}?",
        value_what="What is {item}?",
        choose="{question} Answer with one of these names only: {a}, {b}.",
        choose_among="{question} Answer with one of these names only: {names}.",
    ),
    ko=ComparePrompts(
        date=Prompt(
            system="주어진 문서를 바탕으로 질문에 답하세요. 날짜만 답하고(예: \"1985년 10월 8일\", \"1896년\") 다른 말은 "
            "쓰지 마세요. 문서에 없으면 \"모름\"이라고 답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        number=Prompt(
            system="주어진 문서를 바탕으로 질문에 답하세요. 수치만 단위와 함께 답하고(예: \"3,000mAh\", \"1,200만 명\") "
            "다른 말은 쓰지 마세요. 문서에 없으면 \"모름\"이라고 답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        life=Prompt(
            system="주어진 문서를 바탕으로 질문에 답하세요. 태어난 날짜와 세상을 떠난 날짜 두 개만 답하고(예: \"1885년 10월 "
            "8일 – 1960년 5월 12일\") 다른 말은 쓰지 마세요. 문서에 없으면 \"모름\"이라고 답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        name=Prompt(
            system="주어진 문서를 바탕으로 질문에 답하세요. 이름만 답하고 다른 말은 쓰지 마세요. 문서에 없으면 \"모름\"이라고 "
            "답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        yes_no=Prompt(
            system="주어진 문서를 바탕으로 질문에 \"예\" 또는 \"아니오\"로만 답하고 다른 말은 쓰지 마세요. 문서가 질문과 "
            "다르게 설명하면(다른 종류, 다른 곳, 다른 직업, 다른 날짜) \"아니오\"라고 답하세요. 문서에 그에 대한 내용이 전혀 "
            "없을 때만 \"모름\"이라고 답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        value=Prompt(
            system="주어진 문서를 바탕으로 질문에 되도록 짧게(이름, 장소, 연도나 수치만) 답하고 문장으로 쓰지 마세요. 문서에 "
            "없으면 \"모름\"이라고 답하세요." + _KO_DOCS,
            user="질문: {question}",
        ),
        same=Prompt(
            system="\"예\" 또는 \"아니오\"로만 답하세요.",
            user="\"{a}\"와(과) \"{b}\"는 같은 {what} 가리키나?",
        ),
        date_verb="{item} 언제 {verb}?",
        date_event="{item} 언제 {verb}?",
        date_any="다음 질문에서 {item}의 날짜는 언제인가? {question}",
        number_count="{item}의 {measure} 얼마인가?",
        number_measure="{item}의 {measure} 얼마인가?",
        number_any="다음 질문에서 {item}의 수치는 얼마인가? {question}",
        life_dates="{item} 언제 태어났고 언제 세상을 떠났나?",
        resolve_who="{item} 누구인가?",
        resolve_what="{item} 무엇인가?",
        resolve_where="{item} 어디인가?",
        resolve_role="{item}의 {role} 누구인가?",
        fits="{question} {item}인가?",
        value_of="{item}의 {what} 무엇인가?",
        value_when="{item} 언제인가?",
        value_what="{item} 무엇인가?",
        choose="{question} {a}, {b} 중 하나의 이름만 답하세요.",
        choose_among="{question} 다음 이름 중 하나만 답하세요: {names}.",
    ),
)
