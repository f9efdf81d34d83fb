"""History and feedback: every question the service answers, in a real database.

    db.py          SQLite (default, WAL) or PostgreSQL (by URL, pg8000): one SQL text for both
    migrations.py  the schema as numbered migrations, recorded in schema_version
    store.py       HistoryStore: conversations, questions (trace, latency, tokens, client), feedback
    keys.py        named API keys (hashed), revocable without a restart
    export.py      questions and corrected answers as a question set for `gaji eval`

The database is the `history_db` setting (GAJI_HISTORY_DB): a path (default $GAJI_HOME/history.sqlite3),
a `postgresql://` URL, or `off`.
"""
from __future__ import annotations

from pathlib import Path

from gaji.config import Settings, default_home

OFF = ("off", "none", "no", "false", "0")


def history_spec(settings: Settings) -> str | None:
    """Where the history lives by the settings: a path or URL, or None when it is turned off."""
    spec = (settings.history_db or "").strip()
    if spec.lower() in OFF:
        return None
    return spec or str(Path(default_home()) / "history.sqlite3")
