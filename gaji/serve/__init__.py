"""`gaji serve`: the HTTP API and the web page over one or more indexes.

    app.py      create_app(indexes, config) -> FastAPI: middleware, error handlers, routers
    routes/     one router per concern: page, info (health, methods, metrics), indexes, ask (JSON and SSE)
    service.py  AskService: the ask pipeline every answering endpoint shares (checks, queue, time limit,
                outcome -> status and body, metrics)
    errors.py   exceptions -> HTTP status and `{"error": ...}` bodies; request ids
    runner.py   per-request runs: queue onto the LLM's slots, time limit, cancellation, SSE events
    auth.py     API key (GAJI_API_KEY), constant-time compare
    guard.py    Host, Origin and Content-Type checks (DNS rebinding, cross-site writes)
    limits.py   request-body size limits (file uploads: their base64 counted)
    asgi.py     small ASGI helpers the middleware share (an error response, added headers)
    metrics.py  request counts, latency percentiles, tokens, errors
    indexes.py  indexes by name (never by path), their status and document uploads
    uploads.py  document files sent as base64 JSON: names checked, read by gaji.corpus.formats, one result each
    schemas.py  the JSON bodies (pydantic), shown in /openapi.json
    static/     the web page (plain HTML/JS/CSS, no build step, no CDN; upload.js: adding documents)
"""
