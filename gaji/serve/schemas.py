"""The JSON bodies of the HTTP API (pydantic models; they make up /openapi.json).

Request bodies forbid unknown fields, so a typo (`"methd"`) is a 400, not a silent default.
Responses carry the trace as plain JSON (`gaji.types.Trace.to_dict`), the same shape the CLI's
`gaji ask --json` prints and the web page renders.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gaji.text.normalize import surrogate_field

OptionValue = str | int | float | bool | list[str] | list[int] | list[float] | None


class AskRequest(BaseModel):
    """One question, asked with a method (and its options) over a named index."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000, description="the question, Korean or English")
    method: str | None = Field(None, description="method name (GET /api/methods); default: the server's")
    index: str | None = Field(None, description="index name (GET /api/indexes); default: the first one")
    options: dict[str, OptionValue] = Field(default_factory=dict, description="method options, e.g. {\"k\": 5}")
    retriever: str | None = Field(None, description="bm25 | dense | hybrid; default: the server's")
    lang: Literal["auto", "ko", "en"] | None = Field(None, description="prompt language; default follows the question")
    include_prompts: bool = Field(False, description="keep each LLM call's prompt in the trace (large)")
    conversation_id: str | None = Field(
        None, min_length=1, max_length=64,
        description="continue this conversation (its id came with an earlier answer): the question is read as a "
        "follow-up and rewritten into a standalone one first; default: a new conversation")

    @model_validator(mode="after")
    def _valid_unicode(self) -> "AskRequest":
        # "\ud800" is valid JSON but no character: it could not even be written back in the answer
        where = surrogate_field(self.model_dump())
        if where is not None:
            raise ValueError(f"{where}: holds an unpaired surrogate (a \\ud800-\\udfff escape), which is not valid Unicode")
        return self


class Citation(BaseModel):
    id: str
    doc_id: str
    title: str = ""
    text: str = ""
    location: dict[str, Any] | None = Field(
        None, description="where in the source file: {file, page, slide, sheet, rows, section, sha256} (gaji.types.Location)")


class AskResponse(BaseModel):
    answer: str = Field(description="the short answer (a span), or a paragraph for long-form styles")
    explanation: str = Field("", description="the sentence that explains the answer")
    citations: list[Citation]
    status: str
    error: str | None = None
    usage: dict[str, Any]
    usage_by_purpose: dict[str, Any] = Field(default_factory=dict, description="usage per component (LLMCall.purpose)")
    trace: dict[str, Any] = Field(description="the whole run: see gaji.types.Trace")
    trace_id: str | None = Field(None, description="the stored trace: GET /api/traces/{trace_id}; feedback names it")
    conversation_id: str | None = Field(None, description="send it with the next question to ask a follow-up")
    history: str = Field("off", description="stored | not stored (the history database is down: the answer is "
                         "queued on the server and stored once it is back; the X-Gaji-History header says the same) | off")


class FeedbackRequest(BaseModel):
    """A rating of one answer, and optionally the answer that would have been right."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str = Field(min_length=1, max_length=64, description="the answer's trace id")
    rating: Literal["up", "down"]
    correct_answer: str | None = Field(None, max_length=4000, description="what the answer should have been")
    comment: str | None = Field(None, max_length=4000)


class FeedbackResponse(BaseModel):
    id: str
    trace_id: str
    rating: str
    correct_answer: str | None = None
    comment: str | None = None
    created_at: str


class ErrorResponse(BaseModel):
    error: str = Field(description="what went wrong, for a person to read")


class OptionInfo(BaseModel):
    name: str
    type: str
    default: Any = None


class MethodInfo(BaseModel):
    name: str
    help: str = ""
    needs_retriever: bool = True
    options: list[OptionInfo]
    knobs: list[str] = Field(default_factory=list, description="the knobs (MethodsResponse.knobs) that apply")


class RecipeInfo(BaseModel):
    """A shipped configuration of a method (gaji/recipes.py), asked for by its name like a method."""

    name: str
    version: int
    ref: str = Field(description="name@version, as a trace records it")
    method: str = Field(description="the method it runs (its raw options: the methods list)")
    options: dict[str, Any] = Field(description="the options the recipe sets; the method's defaults fill the rest")
    title_ko: str
    title_en: str
    help_ko: str
    help_en: str
    needs_retriever: bool = True
    knobs: list[str] = Field(default_factory=list, description="the knobs (MethodsResponse.knobs) that apply")


class KnobInfo(BaseModel):
    """An understandable setting: a method option (`option`) or a request field (`request_field`)."""

    name: str
    title_ko: str
    title_en: str
    help_ko: str
    help_en: str
    option: str = ""
    request_field: str = ""
    choices: list[str] = Field(default_factory=list)
    minimum: int | None = None
    maximum: int | None = None


class MethodsResponse(BaseModel):
    methods: list[MethodInfo]
    default: str
    retrievers: list[str]
    recipes: list[RecipeInfo] = Field(default_factory=list)
    knobs: list[KnobInfo] = Field(default_factory=list)


class IndexSummary(BaseModel):
    name: str
    default: bool = False
    status: str = Field(description="ok | unavailable | not loaded")


class IndexesResponse(BaseModel):
    indexes: list[IndexSummary]


class IndexStatus(BaseModel):
    name: str
    status: str
    chunks: int | None = None
    documents: int | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    vectors: dict[str, Any] | None = Field(
        None, description="state: complete | none | pending (BM25 answers until complete); while pending: "
        "done, total, rate (passages/s), eta_s, running")
    progress: dict[str, Any] | None = Field(
        None, description="the last build / add / fill on this index: action, stage (read, chunk, bm25, searchable, "
        "embedding, vectors, done | stopped), done, total, unit, rate (per second), eta_s, running, age_s")


class UploadResponse(BaseModel):
    index: str
    added: int = Field(description="documents received")
    chunks: dict[str, int] = Field(default_factory=dict, description="what the index did: added, replaced, unchanged, …")
    status: IndexStatus


class RemoveResponse(BaseModel):
    index: str
    removed: list[str] = Field(description="documents taken out of the index")
    chunks: dict[str, int] = Field(default_factory=dict, description="chunks removed (and the other counts)")
    generation: int = Field(0, description="the index's committed generation afterwards")
    status: IndexStatus


MAX_FILES = 100


class UploadedFileBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=1000, description="the file's own name, with its extension: 보고서.hwp")
    content_base64: str = Field(description="the file's bytes in base64 (standard alphabet, padded)")


class FilesRequest(BaseModel):
    """Document files to add to an index: PDF, HWP, HWPX, DOCX, PPTX, XLSX, HTML, TXT, MD."""

    model_config = ConfigDict(extra="forbid")

    files: list[UploadedFileBody] = Field(min_length=1, max_length=MAX_FILES)


class FileResultBody(BaseModel):
    name: str
    status: Literal["added", "refused"]
    reason: str = Field("", description="why the file was refused (empty when added)")
    format: str = ""
    bytes: int = 0
    documents: list[str] = Field(default_factory=list, description="the document ids read from it: the file "
                                 "name, with #page3 / #slide2 / #sheet1 / #sec2 where it makes several")
    chunks: int = 0
    notices: list[str] = Field(default_factory=list, description="what was read but worth telling (a scanned page)")
    reason_msg: dict[str, Any] | None = Field(None, description="the reason as a message of the table: {id, params}")


class FilesResponse(BaseModel):
    index: str
    added: int = Field(description="files added")
    refused: int = Field(description="files refused (see each file's reason)")
    files: list[FileResultBody]
    chunks: dict[str, int] = Field(default_factory=dict, description="what the index did: added, replaced, unchanged, …")
    status: IndexStatus


class DocumentRowBody(BaseModel):
    name: str = Field(description="the file (a PDF's pages, a workbook's sheets together), or a record's id")
    status: Literal["indexed", "refused"]
    format: str = Field("", description="PDF, HWP 5, HWPX, DOCX, PPTX, XLSX, HTML, text, JSONL")
    documents: list[str] = Field(default_factory=list, description="the document ids it made: DELETE …/documents?id= takes them out")
    chunks: int = 0
    units: dict[str, int] = Field(default_factory=dict, description="pages, slides, sheets, sections or rows")
    updated: str = Field("", description="when it was indexed (or refused), ISO time")
    origin: str = Field("", description="folder | upload | corpus")
    can_sync: bool = Field(False, description="its original file can be read again: POST …/sync")
    reason: str = Field("", description="why it was refused (English)")
    reason_msg: dict[str, Any] | None = Field(None, description="the reason as a message of the table: {id, params}")
    first_chunk: str = Field("", description="the id of its first chunk")
    view_url: str = Field("", description="the passage view of its first chunk (a signed link: /passage/…)")
    original: str = Field("", description="kept: the index keeps a copy of the file; source: the file where it was "
                          "read is served while unchanged; '': no original can be handed out")
    original_url: str = Field("", description="a signed link to the original file (/original/…), when there is one")


class DocumentsResponse(BaseModel):
    index: str
    total: int
    offset: int
    documents: list[DocumentRowBody]


class SyncRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str = Field(min_length=1, max_length=1000, description="a file name from GET /api/indexes/{name}/documents")


class SyncResponse(BaseModel):
    index: str
    file: str
    added: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    kept: list[str] = Field(default_factory=list, description="documents of files that could not be read, left as they were")
    unchanged: int = 0
    status: IndexStatus


class Health(BaseModel):
    status: str
    version: str
