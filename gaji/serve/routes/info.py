"""What the server is and how it is doing: health, the methods it offers, its metrics."""
from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter

from gaji import __version__, recipes
from gaji.registry import METHODS, RETRIEVERS, method_knobs
from gaji.serve import schemas
from gaji.serve.errors import ERRORS
from gaji.serve.routes import Service

router = APIRouter(tags=["info"])


@router.get("/api/health", response_model=schemas.Health)
async def health() -> dict:
    """Liveness; needs no API key."""
    return {"status": "ok", "version": __version__}


@router.get("/api/methods", response_model=schemas.MethodsResponse, responses=ERRORS)
async def methods(service: Service) -> dict:
    """The registered methods with their options (name, type, default); the recipes (shipped configurations,
    asked for by name like a method) with their Korean and English titles and help; the knobs a person can set."""
    out = []
    for e in METHODS.entries():
        opts = [{"name": n, "type": t, "default": _jsonable(d)} for n, t, d in e.obj.option_help()]
        out.append({"name": e.name, "help": e.help, "needs_retriever": getattr(e.obj, "needs_retriever", True),
                    "options": opts, "knobs": [k.name for k in method_knobs(e.name)]})
    listed = [{**r.to_dict(), "options": {k: _jsonable(v) for k, v in r.options.items()},
               "needs_retriever": getattr(METHODS.get(r.method), "needs_retriever", True),
               "knobs": [k.name for k in method_knobs(r.name)]} for r in recipes.list()]
    return {"methods": out, "default": service.default_method, "retrievers": RETRIEVERS.names(),
            "recipes": listed, "knobs": [k.to_dict() for k in recipes.KNOBS]}


@router.get("/api/metrics", responses=ERRORS)
async def get_metrics(service: Service) -> dict:
    """Requests, question latency p50/p95, tokens, errors, queue state."""
    return service.metrics.snapshot(service.runner.state())


def _jsonable(v: Any) -> Any:
    try:
        json.dumps(v)
        return v
    except TypeError:
        return str(v)
