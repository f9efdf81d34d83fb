"""The real 0.5B model expands a chunk and labels a query (schema-constrained JSON)."""
import pytest

from gaji.expand.generator import Expander
from gaji.expand.keywords import KeywordTeacher
from gaji.types import Chunk


@pytest.mark.model
@pytest.mark.timeout(180)
def test_small_model_expands_a_chunk_and_labels_a_query(small_model):
    c = Chunk(id="t", doc_id="t", title="Eiffel Tower", lang="en",
              text="The Eiffel Tower is a wrought-iron lattice tower in Paris, completed in 1889.")
    e = Expander(small_model, max_tokens=160).expand_one(c)
    assert e.title and 1 <= len(e.questions) <= 3
    assert e.prompt_tokens > 0 and e.completion_tokens > 0 and e.model
    tq = KeywordTeacher(small_model).label("When was the Eiffel Tower completed?")
    assert len(tq.labels) == len(tq.morphemes) and set(tq.labels) <= {"O", "KB", "KI"}
