"""Settings, from one precedence order (later wins):

    built-in defaults  <  config file  <  environment (GAJI_*)  <  command-line flags

The config file is `--config PATH`, else `$GAJI_CONFIG`, else `./gaji.toml` or `./gaji.yaml` when present.
It is flat (`llm = "local:small"`) or has a `[gaji]` table. Environment variables are the upper-case
setting names with a `GAJI_` prefix (`GAJI_LLM=local:small`, `GAJI_K=8`). Unknown keys in a file or
bad values anywhere are errors that name their source.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from gaji.coerce import check_range, parse_bool, parse_pairs
from gaji.errors import ConfigError


def default_home() -> Path:
    """Where gaji keeps its caches (assembled models, LLM responses): $GAJI_HOME or ~/.cache/gaji."""
    return Path(os.environ.get("GAJI_HOME") or Path.home() / ".cache" / "gaji")


# the method every entry point answers with unless told otherwise (gaji ask, serve and its chat, demo, the API)
DEFAULT_METHOD = "auto"


@dataclass
class Settings:
    llm: str = "local"  # see gaji.llm.factory
    base_url: str | None = None  # for openai:MODEL
    index: str | None = None  # index directory
    method: str = DEFAULT_METHOD
    retriever: str = "hybrid"  # bm25 | dense | hybrid
    # options of that retriever, checked against what it declares (gaji/registry.py), e.g. {"max_depth": "1"} for
    # contre; flag --retriever-opt KEY=VALUE (repeatable), env GAJI_RETRIEVER_OPTIONS="key=value;key=value"
    retriever_options: dict[str, str] = field(default_factory=dict)
    k: int = 5
    lang: str = "auto"  # auto | ko | en
    cache: bool = False  # on-disk LLM response cache (gaji eval turns it on)
    cache_dir: str | None = None
    parallel: int = 2  # LLM parallel slots (embedded backend)
    ctx_size: int = 8192  # total context of the embedded backend (shared by its slots)
    threads: int = 0  # 0 = all cores
    prompt_cache: bool = True  # embedded backend: reuse the KV cache of a shared prompt prefix (off: for cost A/B runs)
    timeout_s: float = 120.0  # per socket operation of a server backend (a stall between two reads)
    deadline_s: float = 45.0  # total per LLM or store call, retries and slow reads included (GAJI_DEADLINE_S)
    retries: int = 2
    # history of the questions served, and their feedback: a path (default $GAJI_HOME/history.sqlite3),
    # a postgresql:// URL, or "off"
    history_db: str = ""
    # the model name a chat client gets when it asks for "gaji" (and the first one /v1/models lists);
    # "" = gaji-<method>, the server's default method
    chat_model: str = ""
    # bounds on reading one document file (gaji.corpus.formats.limits.ReadLimits.OPTIONS), e.g. a [read_limits]
    # table with expanded_mb = 50, or env GAJI_READ_LIMITS="expanded_mb=50;seconds=10"
    read_limits: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict, repr=False)  # setting -> where its value came from


_FIELDS = {f.name: f for f in dataclasses.fields(Settings) if f.name != "sources"}


# settings whose out-of-range values would switch something off or hang (a deadline of 0 used to mean "none")
SETTING_RANGES: dict[str, tuple[float, float]] = {
    "deadline_s": (0.1, 86_400), "timeout_s": (0.1, 86_400), "parallel": (1, 256), "threads": (0, 1024),
    "ctx_size": (128, 1_048_576),
}


def coerce_setting(name: str, value: Any, source: str) -> Any:
    f = _FIELDS[name]
    ty = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if value is None:
        return None
    try:
        if ty.startswith("dict"):
            return _mapping(value)
        if ty.startswith("bool"):
            return value if isinstance(value, bool) else parse_bool(str(value))
        if ty.startswith("int"):
            return check_range(name, int(value), f"{source}: setting {name!r}", SETTING_RANGES)
        if ty.startswith("float"):
            return check_range(name, float(value), f"{source}: setting {name!r}", SETTING_RANGES)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: setting {name!r} cannot be {value!r} (expected {ty})") from None


def _mapping(value: Any) -> dict[str, str]:
    """A mapping setting: a mapping (config file, flags) or "key=value;key=value" (environment)."""
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    if isinstance(value, str):
        return parse_pairs(part for part in value.split(";") if part.strip())
    raise TypeError


def read_config_file(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"config file not found: {p}")
    try:
        text = p.read_text(encoding="utf-8")
        if p.suffix in (".toml",):
            data = tomllib.loads(text)
        elif p.suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text) or {}
        else:
            raise ConfigError(f"{p}: config file must be .toml, .yaml or .yml")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"{p}: cannot parse config: {e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: config file is not UTF-8") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: config must be a mapping of settings")
    if "gaji" in data and isinstance(data["gaji"], dict):
        data = data["gaji"]
    for k in data:
        if k.replace("-", "_") not in _FIELDS:
            raise ConfigError(f"{p}: unknown setting {k!r}; known: {', '.join(sorted(_FIELDS))}")
    return {k.replace("-", "_"): v for k, v in data.items()}


def load_settings(
    flags: Mapping[str, Any] | None = None,
    config_path: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
) -> Settings:
    """Resolve settings. `flags` holds only what the user passed on the command line (None = not given)."""
    env = os.environ if env is None else env
    s = Settings()
    sources = {k: "default" for k in _FIELDS}

    path = config_path or env.get("GAJI_CONFIG")
    if not path:
        base = Path(cwd or ".")
        for cand in ("gaji.toml", "gaji.yaml", "gaji.yml"):
            if (base / cand).exists():
                path = str(base / cand)
                break
    if path:
        for k, v in read_config_file(path).items():
            setattr(s, k, coerce_setting(k, v, str(path)))
            sources[k] = f"file {path}"

    for k in _FIELDS:
        ev = env.get("GAJI_" + k.upper())
        if ev is not None and ev != "":
            setattr(s, k, coerce_setting(k, ev, f"environment GAJI_{k.upper()}"))
            sources[k] = f"env GAJI_{k.upper()}"

    for k, v in (flags or {}).items():
        k = k.replace("-", "_")
        if k in _FIELDS and v is not None:
            setattr(s, k, coerce_setting(k, v, f"flag --{k.replace('_', '-')}"))
            sources[k] = "flag"
    s.sources = sources
    return s
