// gaji web page: ask a question, watch the method's tree grow from the server-sent events, read the
// answer with its sources. Plain JS, no build step, no third-party code. Every piece of server data
// (questions, passages, answers) is inserted as text (textContent), never as HTML. Words come from the
// message table (i18n.js); methods and options are named for people, raw options sit behind "advanced".
"use strict";

(() => {
  const { $, el } = window.gajiDom; // dom.js: an element by id, an element with a class and text
  const state = {
    lang: localStorage.getItem("gaji.lang") || ((navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en"),
    key: sessionStorage.getItem("gaji.key") || "",
    methods: [], defaultMethod: "", nodes: new Map(), els: new Map(), passages: new Map(),
    rootId: null, citeNo: new Map(), controller: null, started: 0, timer: null, trace: null, running: false, index: "",
  };

  // labels come from the message table (i18n.js): "page.<k>", run and node states "status.<k>"
  const { tr, has } = window.gajiI18n;
  const t = (k, params) => tr(has(`page.${k}`) ? `page.${k}` : `status.${k}`, params, state.lang);


  const fmtInt = (n) => Number(n || 0).toLocaleString(state.lang === "ko" ? "ko-KR" : "en-US");
  const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms || 0)} ms`);

  // -- language ---------------------------------------------------------------------------------
  function applyI18n() {
    document.documentElement.lang = state.lang;
    for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
    for (const e of document.querySelectorAll("[data-i18n-placeholder]")) e.placeholder = t(e.dataset.i18nPlaceholder);
    for (const e of document.querySelectorAll("[data-i18n-id]")) e.textContent = tr(e.dataset.i18nId, null, state.lang);
    $("lang-toggle").textContent = state.lang === "ko" ? "English" : "한국어";
    renderMethodTitles();
    renderOptions();
    rerenderAll();
  }

  // -- API --------------------------------------------------------------------------------------
  function headers(json) {
    const h = {};
    if (json) h["Content-Type"] = "application/json";
    if (state.key) h["X-API-Key"] = state.key;
    return h;
  }

  async function api(path) {
    const res = await fetch(path, { headers: headers(false) });
    if (!res.ok) throw await httpError(res);
    return res.json();
  }

  async function httpError(res) {
    let msg = `HTTP ${res.status}`;
    try {
      const body = await res.json();
      msg = window.gajiI18n.renderMsg(body.msg, state.lang) || body.error || msg; // a table message: in the page's language
    } catch (_) { /* not JSON */ }
    if (res.status === 401) $("key-panel").classList.remove("hidden");
    return new Error(msg);
  }

  function showError(msg) {
    const box = $("error");
    box.textContent = msg ? `${t("error")}: ${msg}` : "";
    box.classList.toggle("hidden", !msg);
  }

  // -- methods, options, indexes ----------------------------------------------------------------
  async function loadLists() {
    try {
      const [m, ix] = await Promise.all([api("/api/methods"), api("/api/indexes")]);
      state.methods = m.methods;
      state.defaultMethod = m.default;
      const sel = $("method");
      sel.replaceChildren();
      for (const meth of m.methods) sel.append(new Option(methodTitle(meth), meth.name));
      sel.value = localStorage.getItem("gaji.method") || m.default;
      if (!sel.value && m.methods.length) sel.value = m.default || m.methods[0].name;
      const isel = $("index");
      isel.replaceChildren();
      for (const i of ix.indexes) isel.append(new Option(i.name, i.name, i.default, i.default));
      if (!ix.indexes.length) isel.append(new Option(t("noIndex"), ""));
      isel.disabled = !ix.indexes.length;
      renderOptions(true);
      showError("");
    } catch (e) {
      showError(e.message);
    }
  }

  const currentMethod = () => state.methods.find((m) => m.name === $("method").value);

  // a method's (or recipe's) name and help for people: what the server says in this language, else the table
  function methodTitle(m) {
    const own = m[`title_${state.lang}`];
    if (own) return own;
    return has(`method.${m.name}`) ? tr(`method.${m.name}`, null, state.lang) : m.name;
  }

  function methodHelp(m) {
    return m[`help_${state.lang}`] || (has(`method.${m.name}.help`) ? tr(`method.${m.name}.help`, null, state.lang) : m.help);
  }

  function renderMethodTitles() {
    for (const o of $("method").options) {
      const m = state.methods.find((x) => x.name === o.value);
      if (m) o.textContent = methodTitle(m);
    }
  }

  function renderMethodHelp() {
    const m = currentMethod();
    $("method-help").textContent = m ? methodHelp(m) + (m.needs_retriever ? ` · ${t("needsIndex")}` : "") : "";
  }

  const KNOBS = ["effort", "k"]; // shown outside the advanced fold, with plain words
  const optionLabel = (name) => (has(`option.${name}`) ? tr(`option.${name}`, null, state.lang) : name);

  function renderOptions(fresh) {
    const box = $("options");
    const knobs = $("knobs");
    const keep = fresh === true ? {} : collectOptions(); // what the user changed survives a language switch
    box.replaceChildren();
    knobs.replaceChildren();
    const m = currentMethod();
    renderMethodHelp();
    if (!m) return;
    for (const o of m.options) {
      const knob = KNOBS.includes(o.name);
      const lab = el("label", knob ? "opt knob" : "opt");
      lab.append(el("span", "opt-label", knob && has(`knob.${o.name}`) ? tr(`knob.${o.name}`, null, state.lang) : optionLabel(o.name)));
      let input;
      if (o.name === "effort") {
        input = el("select");
        for (const v of ["low", "medium", "high"]) input.append(new Option(tr(`knob.effort.${v}`, null, state.lang), v));
        input.value = o.default || "medium";
      } else if (o.type === "bool") {
        input = el("input");
        input.type = "checkbox";
        input.checked = !!o.default;
      } else {
        input = el("input");
        input.type = o.type === "int" || o.type === "float" ? "number" : "text";
        if (o.type === "float") input.step = "any";
        input.value = o.default === null || o.default === undefined ? "" : Array.isArray(o.default) ? o.default.join(",") : o.default;
      }
      if (o.name in keep) {
        if (input.type === "checkbox") input.checked = !!keep[o.name];
        else input.value = keep[o.name];
      }
      input.dataset.name = o.name;
      input.dataset.type = o.type;
      input.dataset.default = JSON.stringify(o.default);
      lab.append(input);
      if (!knob) lab.append(el("span", "opt-name", o.name)); // the raw name, as the CLI's -o takes it
      (knob ? knobs : box).append(lab);
    }
  }

  function collectOptions() {
    const out = {};
    for (const input of $("ask-form").querySelectorAll("[data-name]")) {
      const def = JSON.parse(input.dataset.default);
      let v;
      if (input.tagName === "SELECT") v = input.value;
      else if (input.type === "checkbox") v = input.checked;
      else if (input.dataset.type === "int") v = input.value === "" ? null : parseInt(input.value, 10);
      else if (input.dataset.type === "float") v = input.value === "" ? null : parseFloat(input.value);
      else v = input.value;
      const same = Array.isArray(def) ? v === def.join(",") : v === def || (v === "" && def === null);
      if (!same && v !== null && !Number.isNaN(v)) out[input.dataset.name] = v;
    }
    return out;
  }

  // -- asking and the event stream --------------------------------------------------------------
  function resetRun() {
    state.nodes.clear();
    state.els.clear();
    state.passages.clear();
    state.citeNo.clear();
    state.rootId = null;
    state.trace = null;
    $("tree").replaceChildren();
    $("answer").replaceChildren(el("span", "muted", t("thinking")));
    $("sources").replaceChildren();
    $("cost").replaceChildren();
    $("download").classList.add("hidden");
    $("answer-card").classList.remove("hidden");
    $("tree-card").classList.remove("hidden");
    showError("");
  }

  function setRunning(on) {
    state.running = on;
    $("ask").disabled = on;
    $("stop").classList.toggle("hidden", !on);
    clearInterval(state.timer);
    if (on) {
      state.started = performance.now();
      const tick = () => {
        if (!state.running) return; // the final event came: its status stays
        setStatus("running", `${t("running")} ${fmtMs(performance.now() - state.started)}`);
        renderLiveCost();
      };
      tick();
      state.timer = setInterval(tick, 250);
    }
  }

  function setStatus(kind, text) {
    const b = $("run-status");
    b.className = `badge status-${kind}`;
    b.textContent = text;
  }

  async function ask(ev) {
    if (ev) ev.preventDefault();
    const question = $("question").value.trim();
    if (!question || state.running) return;
    localStorage.setItem("gaji.method", $("method").value);
    resetRun();
    setRunning(true);
    const body = { question, method: $("method").value || null, options: collectOptions() };
    if ($("index").value) body.index = $("index").value;
    state.index = body.index || "";
    if ($("prompt-lang").value) body.lang = $("prompt-lang").value; // empty: the language follows the question
    // hooks for conversation.js (the thread view): it may add a conversation_id, and it sees every event
    document.dispatchEvent(new CustomEvent("gaji:ask", { detail: body }));
    state.controller = new AbortController();
    let finished = false;
    try {
      const res = await fetch("/api/ask/stream", {
        method: "POST", headers: headers(true), body: JSON.stringify(body), signal: state.controller.signal,
      });
      if (!res.ok) throw await httpError(res);
      await readEvents(res.body, (name, data) => {
        document.dispatchEvent(new CustomEvent("gaji:event", { detail: { name, data } }));
        if (onEvent(name, data)) finished = true;
      });
      if (!finished) throw new Error(t("closedEarly"));
    } catch (e) {
      if (e.name === "AbortError") setStatus("failed", t("stopped"));
      else { showError(e.message); setStatus("failed", t("failed")); }
      if (!state.trace) {
        $("answer").replaceChildren(el("span", "muted", t("noAnswer")));
        state.running = false;
        stopUnfinished();
      }
    } finally {
      state.controller = null;
      setRunning(false);
      document.dispatchEvent(new CustomEvent("gaji:done", { detail: { finished } }));
    }
  }

  async function readEvents(stream, onEvent) {
    const reader = stream.getReader();
    const dec = new TextDecoder("utf-8");
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf = (buf + dec.decode(value, { stream: true })).replace(/\r\n/g, "\n");
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (!line || line.startsWith(":")) continue;
          const c = line.indexOf(":");
          const field = c < 0 ? line : line.slice(0, c);
          let v = c < 0 ? "" : line.slice(c + 1);
          if (v.startsWith(" ")) v = v.slice(1);
          if (field === "event") event = v;
          else if (field === "data") data.push(v);
        }
        if (data.length) onEvent(event, JSON.parse(data.join("\n")));
      }
    }
  }

  /** Returns true when the run is over (final or error). */
  function onEvent(name, data) {
    if (name === "start" && data.index) state.index = data.index;
    if (name === "node") {
      for (const [pid, p] of Object.entries(data.passages || {})) state.passages.set(pid, p);
      upsertNode(data);
      return false;
    }
    if (name === "final") {
      renderFinal(data);
      return true;
    }
    if (name === "error") {
      state.running = false;
      showError(window.gajiI18n.renderMsg(data.msg, state.lang) || data.error);
      setStatus("failed", t("failed"));
      if (data.trace) renderFinal(data, true);
      else {
        $("answer").replaceChildren(el("span", "muted", t("noAnswer")));
        stopUnfinished();
      }
      return true;
    }
    return false;
  }

  /** The run ended (failed, timed out, stopped) without a final trace: its unfinished nodes are stopped. */
  function stopUnfinished() {
    for (const [id, n] of state.nodes) {
      if (n.status === "running") {
        n.status = "stopped";
        renderNode(n, nodeShell(id));
      }
    }
  }

  // -- the tree ---------------------------------------------------------------------------------
  function nodeShell(id) {
    let rec = state.els.get(id);
    if (!rec) {
      const wrap = el("div", "node");
      wrap.dataset.id = id;
      const main = el("div", "node-main");
      const kids = el("div", "node-children");
      wrap.append(main, kids);
      rec = { wrap, main, kids };
      state.els.set(id, rec);
    }
    return rec;
  }

  /** Insert or update one node (a streamed node, or a full trace node with nested children). */
  function upsertNode(node) {
    const childIds = node.child_ids || (node.children || []).map((c) => c.id);
    const known = state.nodes.get(node.id) || {};
    const merged = { ...known, ...node, child_ids: childIds };
    delete merged.children;
    state.nodes.set(node.id, merged);
    for (const c of node.children || []) upsertNode(c);
    const rec = nodeShell(node.id);
    if (state.rootId === null && (node.kind === "root" || !node.level)) {
      state.rootId = node.id;
      rec.wrap.classList.add("root");
      $("tree").append(rec.wrap);
    }
    renderNode(merged, rec);
    place(node.id);
    for (const cid of childIds) if (state.els.has(cid)) place(cid);
  }

  function parentOf(id) {
    for (const [pid, n] of state.nodes) if ((n.child_ids || []).includes(id)) return pid;
    return null;
  }

  /** Put a node's element under its parent (in the parent's child order); orphans wait under the root. */
  function place(id) {
    if (id === state.rootId) return;
    const rec = state.els.get(id);
    const pid = parentOf(id) || state.rootId;
    if (!pid || pid === id) { if (!rec.wrap.parentNode) $("tree").append(rec.wrap); return; }
    const parent = nodeShell(pid);
    const order = (state.nodes.get(pid) || {}).child_ids || [];
    const idx = order.indexOf(id);
    let before = null;
    if (idx >= 0) {
      for (const sib of order.slice(idx + 1)) {
        const s = state.els.get(sib);
        if (s && s.wrap.parentNode === parent.kids) { before = s.wrap; break; }
      }
    }
    if (rec.wrap.parentNode !== parent.kids || (before && rec.wrap.nextSibling !== before)) {
      parent.kids.insertBefore(rec.wrap, before);
    }
  }

  function nodeUsage(n) {
    let p = 0, c = 0, ms = 0;
    for (const call of n.calls || []) { p += call.prompt_tokens || 0; c += call.completion_tokens || 0; ms += call.wall_ms || 0; }
    return { p, c, ms, calls: (n.calls || []).length };
  }

  function renderNode(n, rec) {
    const open = new Set([...rec.main.querySelectorAll("details[data-key]")].filter((d) => d.open).map((d) => d.dataset.key));
    rec.wrap.className = `node kind-${n.kind || "node"} nstatus-${n.status || "ok"}${n.id === state.rootId ? " root" : ""}`;
    const main = rec.main;
    main.replaceChildren();

    const head = el("div", "node-head");
    const kind = n.kind || "node";
    const badge = el("span", "badge kind", has(`kind.${kind}`) ? tr(`kind.${kind}`, null, state.lang) : kind);
    badge.title = kind;
    head.append(badge);
    const facts = n.display || [];  // the method's own description of the node, in the trace's language
    for (const f of facts.filter((f) => f.tone === "tag")) {
      const b = el("span", "badge tag", f.text);
      b.title = f.label;
      head.append(b);
    }
    // a node whose description words its filled question itself, under its own label (a follow-up's rewrite:
    // "rewritten as"), is headed by the question as asked, its input; else by the filled question
    const filledSaid = !!n.filled_question && facts.some((f) => f.tone !== "tag" && f.text === n.filled_question);
    const shown = (filledSaid ? n.question : n.filled_question || n.question) || "";
    head.append(el("span", "node-q", shown));
    head.append(el("span", "spacer"));
    const u = nodeUsage(n);
    const ms = n.wall_ms || u.ms + ((n.data || {}).retrieval_ms || 0);
    const meta = [];
    if (u.calls) meta.push(`${u.calls} ${t("calls")}`, `${fmtInt(u.p + u.c)} ${t("tokens")}`);
    if (ms) meta.push(fmtMs(ms));
    head.append(el("span", "node-meta", meta.join(" · ")));
    if (n.status && n.status !== "ok") head.append(el("span", `badge status-${n.status}`, t(n.status)));
    main.append(head);

    if (!filledSaid && n.filled_question && n.question && n.filled_question !== n.question) {
      const tpl = el("div", "node-line template");
      tpl.append(el("span", "label", t("template")));
      tpl.append(highlightSlots(n.question));
      main.append(tpl);
    }
    if (n.query && n.query !== shown) {
      const q = el("div", "node-line query");
      q.append(el("span", "label", t("query")), el("span", null, n.query));
      main.append(q);
    }
    for (const f of facts.filter((f) => f.tone !== "tag")) {  // decisions (why it split, stopped, skipped), notes
      const line = el("div", `node-line fact tone-${f.tone}`);
      line.append(el("span", "label", f.label), el("span", null, f.text));
      main.append(line);
    }
    if (n.answer) main.append(el("div", "node-answer", n.answer));
    else if (state.running && n.status !== "failed") main.append(el("div", "node-answer pending", "…"));
    if (n.error) main.append(el("div", "node-error", n.error));

    const scores = Object.entries(n.scores || {});
    if (scores.length) {
      const s = el("div", "scores");
      for (const [k, v] of scores) {
        const chip = el("span", "chip");
        const name = el("span", "chip-k", has(`score.${k}`) ? tr(`score.${k}`, null, state.lang) : k);
        name.title = k;
        chip.append(name, el("span", "chip-v", typeof v === "object" ? JSON.stringify(v) : v));
        s.append(chip);
      }
      main.append(s);
    }

    const pids = n.passage_ids || [];
    if (pids.length) {
      const d = details("p", `${t("passages")} (${pids.length})`, open, "passages");
      const list = el("ol", "passage-list");
      for (const pid of pids) list.append(renderPassage(pid, n));
      d.append(list);
      main.append(d);
    }
    if ((n.calls || []).length) {
      const d = details("c", `${t("calls")} (${n.calls.length})`, open, "calls");
      for (const call of n.calls) d.append(renderCall(call));
      main.append(d);
    }
    const data = Object.entries(n.data || {}).filter(([k]) => k !== "retrieval_ms");
    if (data.length) {
      const d = details("d", t("data"), open, "data");
      d.append(el("pre", "json", JSON.stringify(Object.fromEntries(data), null, 2)));
      main.append(d);
    }
  }

  function details(key, summary, open, cls) {
    const d = el("details", cls);
    d.dataset.key = key;
    d.open = open.has(key);
    d.append(el("summary", null, summary));
    return d;
  }

  function renderPassage(pid, node) {
    const p = state.passages.get(pid) || { id: pid, title: pid, text: "" };
    const rel = (node.relevance || {})[pid];
    const li = el("li", "passage");
    li.dataset.pid = pid;
    const head = el("div", "p-head");
    const no = state.citeNo.get(pid);
    if (no) head.append(el("span", "cite-no", `[${no}]`));
    head.append(el("span", "p-title", p.title || p.doc_id || pid));
    // rank: the passage's place in this node's results. A passage is stored once per trace (with the
    // score of the search that first found it), so its score is shown only where it belongs to this search.
    const local = (node.passage_ids || []).indexOf(pid) + 1;
    const scores = (node.data || {}).passage_scores || {};
    const score = pid in scores ? scores[pid].score : p.rank === local ? p.score : undefined;  // {score, rank, source} of this search
    const bits = [`${t("rank")} ${local}`];
    if (score !== undefined && score !== null) bits.push(`${t("score")} ${Number(score).toFixed(3)}`);
    if (p.source) bits.push(p.source);
    head.append(el("span", "p-meta", bits.join(" · ")));
    if (rel && typeof rel.relevant === "boolean") {
      head.append(el("span", `badge rel ${rel.relevant ? "yes" : "no"}`, t(rel.relevant ? "relevant" : "irrelevant")));
    }
    li.append(head);
    const needles = [];
    if (rel && rel.span) needles.push([rel.span, "span"]);
    if (node.answer && node.answer.length >= 2) needles.push([node.answer, "ans"]);
    const text = el("p", "p-text");
    text.append(highlight(p.text || "", needles));
    text.title = t("more");
    text.addEventListener("click", () => text.classList.toggle("open"));
    li.append(text);
    return li;
  }

  function renderCall(call) {
    const box = el("div", `call${call.ok === false ? " failed" : ""}`);
    const bits = [call.purpose || "call", call.model, `${fmtInt(call.prompt_tokens)} + ${fmtInt(call.completion_tokens)} ${t("tokens")}`,
      fmtMs(call.wall_ms)];
    if (call.cached_tokens) bits.push(`${fmtInt(call.cached_tokens)} ${t("cached")}`);
    if (call.cache_hit) bits.push(t("cacheHit"));
    if (call.attempts > 1) bits.push(`${call.attempts} ${t("attempts")}`);
    box.append(el("div", "call-head", bits.filter(Boolean).join(" · ")));
    if (call.error) box.append(el("div", "node-error", call.error));
    if (call.output) box.append(el("pre", "call-out", call.output));
    return box;
  }

  /** Text with the given needles wrapped in <mark> (first needle wins where they overlap). */
  function highlight(text, needles) {
    const frag = document.createDocumentFragment();
    const hits = [];
    const lower = text.toLowerCase();
    for (const [needle, cls] of needles) {
      const n = needle.trim().toLowerCase();
      if (!n) continue;
      for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) hits.push([i, i + n.length, cls]);
    }
    hits.sort((a, b) => a[0] - b[0]);
    let pos = 0;
    for (const [s, e, cls] of hits) {
      if (s < pos) continue;
      frag.append(document.createTextNode(text.slice(pos, s)), el("mark", `hl-${cls}`, text.slice(s, e)));
      pos = e;
    }
    frag.append(document.createTextNode(text.slice(pos)));
    return frag;
  }

  function highlightSlots(q) {
    const frag = document.createDocumentFragment();
    let pos = 0;
    for (const m of q.matchAll(/\[ANS_\d+\]|#\d+/g)) {
      frag.append(document.createTextNode(q.slice(pos, m.index)), el("span", "slot", m[0]));
      pos = m.index + m[0].length;
    }
    frag.append(document.createTextNode(q.slice(pos)));
    return frag;
  }

  function rerenderAll() {
    for (const [id, n] of state.nodes) renderNode(n, nodeShell(id));
    if (state.trace) renderAnswer(state.trace);
  }

  // -- the answer, its sources and the cost -----------------------------------------------------
  function renderFinal(body, failed) {
    const trace = body.trace;
    state.trace = trace;
    state.running = false; // no node is pending any more
    for (const [pid, p] of Object.entries(trace.passages || {})) state.passages.set(pid, p);
    state.citeNo.clear();
    (trace.citations || []).forEach((pid, i) => state.citeNo.set(pid, i + 1));
    upsertNode(trace.root);
    rerenderAll();
    if (!failed) setStatus(trace.status === "ok" ? "ok" : "failed", t(trace.status === "ok" ? "done" : "failed"));
    const dl = $("download");
    dl.classList.remove("hidden");
    dl.onclick = () => {
      const a = el("a");
      a.href = URL.createObjectURL(new Blob([JSON.stringify(trace, null, 2)], { type: "application/json" }));
      a.download = "gaji-trace.json";
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    };
  }

  function renderAnswer(trace) {
    const ans = $("answer");
    ans.replaceChildren(el("span", "answer-text", trace.answer || t("noAnswer")));
    for (const pid of trace.citations || []) ans.append(" ", citeButton(pid));
    const why = $("explanation");
    const shown = trace.explanation && trace.explanation !== trace.answer;
    why.classList.toggle("hidden", !shown);
    why.replaceChildren(...(shown ? [el("b", null, `${t("because")}: `), el("span", null, trace.explanation)] : []));
    const src = $("sources");
    src.replaceChildren();
    if ((trace.citations || []).length) {
      for (const pid of trace.citations) {
        const p = state.passages.get(pid) || { title: pid, text: "" };
        const li = el("li", "source");
        li.append(citeButton(pid), el("span", "p-title", p.title || p.doc_id || pid));
        const where = formatLocation(p);
        if (where) li.append(el("span", "p-loc", ` (${where})`));
        li.append(el("span", "muted", ` — ${(p.text || "").slice(0, 140)}${(p.text || "").length > 140 ? "…" : ""}`));
        if (state.index) {
          const a = el("a", "open-source", t("openSource"));
          a.href = window.gajiI18n.passageUrl(state.index, pid, trace.answer);
          a.target = "_blank";
          a.rel = "noopener";
          li.append(" ", a);
        }
        src.append(li);
      }
    }
    renderCost(trace.usage || {}, trace.wall_ms, countNodes(trace.root));
    const parts = Object.entries(trace.usage_by_purpose || {}).sort((a, b) => b[1].total_tokens - a[1].total_tokens);
    if (parts.length > 1) {
      const line = parts.map(([p, u]) => `${p} ${fmtInt(u.total_tokens)}`).join(" · ");
      $("cost").append(el("span", "cost-parts", `${t("byPurpose")}: ${line}`));
    }
  }

  // Where a source passage sits in its file: "보고서.pdf · 3쪽" (the message table's words, i18n.js)
  const formatLocation = (p) => window.gajiI18n.location(p && p.location, state.lang);

  function citeButton(pid) {
    const b = el("button", "cite", `[${state.citeNo.get(pid) || "?"}]`);
    b.type = "button";
    b.title = (state.passages.get(pid) || {}).title || pid;
    b.addEventListener("click", () => focusPassage(pid));
    return b;
  }

  function focusPassage(pid) {
    const hits = [...$("tree").querySelectorAll(".passage")].filter((e) => e.dataset.pid === pid);
    if (!hits.length) return;
    for (const h of hits) {
      for (let d = h.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
      h.classList.remove("flash");
      void h.offsetWidth; // restart the animation
      h.classList.add("flash");
      h.querySelector(".p-text").classList.add("open");
    }
    hits[0].scrollIntoView({ behavior: "smooth", block: "center" });
  }

  function countNodes(n) {
    return 1 + (n.children || []).reduce((a, c) => a + countNodes(c), 0);
  }

  function renderCost(u, wallMs, nodes) {
    const items = [
      ["c_calls", fmtInt(u.calls)], ["c_prompt", fmtInt(u.prompt_tokens)], ["c_completion", fmtInt(u.completion_tokens)],
      ["c_cached", fmtInt(u.cached_tokens)], ["c_hits", fmtInt(u.cache_hits)], ["c_llm", fmtMs(u.llm_ms || 0)],
      ["c_wall", fmtMs(wallMs || 0)], ["c_nodes", fmtInt(nodes)],
    ];
    if (u.failed_calls) items.push(["c_failed", fmtInt(u.failed_calls)]);
    const box = $("cost");
    box.replaceChildren();
    for (const [k, v] of items) {
      const c = el("span", "stat");
      c.append(el("b", null, v), el("span", null, t(k)));
      box.append(c);
    }
  }

  function renderLiveCost() {
    if (state.trace) return;
    const u = { calls: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cache_hits: 0, llm_ms: 0, failed_calls: 0 };
    for (const n of state.nodes.values()) {
      for (const c of n.calls || []) {
        u.calls += 1; u.prompt_tokens += c.prompt_tokens || 0; u.completion_tokens += c.completion_tokens || 0;
        u.cached_tokens += c.cached_tokens || 0; u.cache_hits += c.cache_hit ? 1 : 0; u.llm_ms += c.wall_ms || 0;
        u.failed_calls += c.ok === false ? 1 : 0;
      }
    }
    renderCost(u, performance.now() - state.started, state.nodes.size);
  }

  // -- wiring -----------------------------------------------------------------------------------
  function init() {
    $("ask-form").addEventListener("submit", ask);
    $("question").addEventListener("keydown", (e) => {
      // Korean (and other) IMEs send Enter to finish composing a syllable: never submit then.
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      ask();
    });
    $("stop").addEventListener("click", () => state.controller && state.controller.abort());
    $("method").addEventListener("change", () => renderOptions(true));
    $("lang-toggle").addEventListener("click", () => {
      state.lang = state.lang === "ko" ? "en" : "ko";
      localStorage.setItem("gaji.lang", state.lang);
      applyI18n();
    });
    $("key-toggle").addEventListener("click", () => $("key-panel").classList.toggle("hidden"));
    $("api-key").value = state.key;
    $("key-save").addEventListener("click", () => {
      state.key = $("api-key").value.trim();
      sessionStorage.setItem("gaji.key", state.key);
      $("key-panel").classList.add("hidden");
      loadLists();
    });
    // conversation.js asks to show a stored answer (one turn of the thread) with its tree
    document.addEventListener("gaji:show", (e) => {
      if (state.running) return;
      resetRun();
      state.index = e.detail.index || state.index || $("index").value;
      renderFinal({ trace: e.detail.trace }, false);
    });
    applyI18n();
    loadLists();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
