"""One turn of a conversation, as the next question's rewrite sees it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Turn:
    """A question asked and the answer given. `standalone` is the question as it was answered (the
    rewrite of a follow-up; "" when it was asked standalone)."""

    question: str
    answer: str = ""
    standalone: str = ""

    @property
    def resolved(self) -> str:
        """The question with its references resolved: what the turn was really about."""
        return self.standalone or self.question
