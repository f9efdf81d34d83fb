"""Errors a user sees: each says what is wrong and where (file, line, field), never a bare traceback."""
from __future__ import annotations


class GajiError(Exception):
    """Base class: the CLI prints `error: <message>` and exits 2."""

    exit_code = 2


class ConfigError(GajiError):
    """A bad flag, option, config file entry or unknown registry name."""


class InputError(GajiError):
    """Bad input data: names the file, the line (1-based) and the field when it knows them."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None, field: str | None = None):
        self.path, self.line, self.field = path, line, field
        where = ""
        if path:
            where = str(path)
            if line is not None:
                where += f":{line}"
            if field:
                where += f" (field {field!r})"
            where += ": "
        super().__init__(where + message)


class IndexUnusableError(GajiError):
    """An index that is missing, incomplete or built with an incompatible configuration."""


class LLMError(GajiError):
    """An LLM call that failed after its retries (unreachable server, timeout, invalid output)."""
