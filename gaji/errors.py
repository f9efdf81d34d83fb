"""Errors a user sees: each says what is wrong and where (file, line, field), never a bare traceback."""
from __future__ import annotations


class GajiError(Exception):
    """Base class: the CLI prints `error: <message>` and exits 2.

    The message may be a `gaji.messages.Msg` (an id of the message table and its parameters): it prints in
    English, and `gaji.messages.error_text` renders it in the reader's language."""

    exit_code = 2
    where = ""  # "file:line (field 'x'): " when the error names a place

    @property
    def msg(self):  # the table message the error was raised with, if any
        first = self.args[0] if self.args else None
        return getattr(self, "_msg", None) or (first if not isinstance(first, str) and hasattr(first, "id") else None)


class ConfigError(GajiError):
    """A bad flag, option, config file entry or unknown registry name."""


class InputError(GajiError):
    """Bad input data: names the file, the line (1-based) and the field when it knows them."""

    def __init__(self, message, path: str | None = None, line: int | None = None, field: str | None = None):
        self.path, self.line, self.field = path, line, field
        if not isinstance(message, str):  # a gaji.messages.Msg
            self._msg = message
        where = ""
        if path:
            where = str(path)
            if line is not None:
                where += f":{line}"
            if field:
                where += f" (field {field!r})"
            where += ": "
        self.where = where
        super().__init__(where + str(message))


class IndexUnusableError(GajiError):
    """An index that is missing, incomplete or built with an incompatible configuration."""


class LLMError(GajiError):
    """An LLM call that failed after its retries (unreachable server, timeout, invalid output)."""
