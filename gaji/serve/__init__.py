"""`gaji serve`: the HTTP API and the web page over one or more indexes.

    app.py      create_app(indexes, config) -> FastAPI: the routes and the error mapping
    runner.py   per-request runs: queue onto the LLM's slots, time limit, cancellation, SSE events
    auth.py     API key (GAJI_API_KEY), constant-time compare
    limits.py   request-body size limit
    metrics.py  request counts, latency percentiles, tokens, errors
    indexes.py  indexes by name (never by path), their status and document uploads
    schemas.py  the JSON bodies (pydantic), shown in /openapi.json
    static/     the web page (plain HTML/JS/CSS, no build step, no CDN)
"""
