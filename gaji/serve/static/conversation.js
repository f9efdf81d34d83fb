// gaji web page, the conversation view: the questions asked so far and their answers as a thread. A new
// question continues the conversation (the server rewrites a follow-up into a standalone question); the
// answer streams into its turn as the method writes it; each turn can show its own tree, and takes
// feedback (up, down, the correct answer). The thread lives on the server (GET /api/conversations/{id});
// this page keeps only the conversation's id, so a reload (or a server restart) shows it again.
// It talks to app.js through DOM events: gaji:ask (add the conversation id), gaji:event (every server-sent
// event), gaji:done (the request ended), gaji:show (show one turn's trace in the tree). Server data is
// always inserted as text (textContent), never as HTML.
"use strict";

(() => {
  const KEY = "gaji.conversation";
  const state = { id: sessionStorage.getItem(KEY) || null, turns: [], current: null };
  const { $, el, headers, errorOf } = window.gajiDom; // dom.js
  const lang = () => (document.documentElement.lang === "ko" ? "ko" : "en");
  // words from the message table (i18n.js): "conv.<k>", run states "status.<k>"
  const t = (k) => window.gajiI18n.tr(window.gajiI18n.has(`conv.${k}`) ? `conv.${k}` : `status.${k}`, null, lang());

  function setConversation(id) {
    state.id = id || null;
    if (state.id) sessionStorage.setItem(KEY, state.id);
    else sessionStorage.removeItem(KEY);
  }

  // -- rendering ----------------------------------------------------------------------------------
  function render() {
    const box = $("thread");
    if (!box) return;
    box.classList.remove("hidden");
    const head = el("div", "thread-head");
    head.append(el("h2", null, t("title")), el("span", "spacer"));
    const fresh = el("button", "ghost small", t("fresh"));
    fresh.type = "button";
    fresh.id = "new-conversation";
    fresh.disabled = !!state.current;
    fresh.addEventListener("click", () => { setConversation(null); state.turns = []; render(); });
    head.append(fresh);
    const list = el("ol", "turns");
    for (const turn of state.turns) list.append(renderTurn(turn));
    box.replaceChildren(head);
    if (state.turns.length) box.append(list);
    else box.append(el("p", "muted small", t("empty")));
  }

  function renderTurn(turn) {
    const li = el("li", `turn turn-${turn.status}`);
    turn.el = li;
    li.append(el("div", "bubble q", turn.question));
    if (turn.standalone && turn.standalone !== turn.question) {
      const rw = el("div", "rewrite muted small");
      rw.append(el("span", "label", `${t("rewritten")}: `), el("span", null, turn.standalone));
      li.append(rw);
    }
    const a = el("div", "bubble a");
    if (turn.status === "running") {
      a.append(el("span", "live", turn.live || t("writing")));
      if (!turn.live) a.classList.add("pending");
    } else if (turn.status === "failed") {
      a.append(el("span", "turn-error", turn.error || t("failed")));
    } else {
      a.append(el("span", "answer-text", turn.answer));
    }
    li.append(a);
    if ((turn.citations || []).length) {
      const src = el("div", "turn-sources muted small");
      src.append(el("span", "label", `${t("sources")}: `));
      turn.citations.forEach((c, i) => src.append(el("span", "src", `[${i + 1}] ${c.title || c.doc_id || c.id}`)));
      li.append(src);
    }
    if (turn.traceId && turn.status !== "running") li.append(renderActions(turn));
    return li;
  }

  function renderActions(turn) {
    const row = el("div", "turn-actions");
    const tree = button(t("tree"), "show-tree", () => showTree(turn));
    const up = button(t("up"), "fb-up", () => sendFeedback(turn, "up"));
    const down = button(t("down"), "fb-down", () => sendFeedback(turn, "down"));
    const fb = turn.feedback && turn.feedback.rating;
    up.classList.toggle("chosen", fb === "up");
    down.classList.toggle("chosen", fb === "down");
    const fix = button(t("correct"), "fb-correct", () => form.classList.toggle("hidden"));
    const form = el("span", "correct-form hidden");
    const input = el("input");
    input.type = "text";
    input.placeholder = t("placeholder");
    input.value = (turn.feedback && turn.feedback.correct_answer) || "";
    const save = button(t("save"), "fb-save", () => sendFeedback(turn, "down", input.value.trim()));
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing && e.keyCode !== 229) { e.preventDefault(); save.click(); }
    });
    form.append(input, save);
    row.append(tree, up, down, fix, form);
    if (turn.note) row.append(el("span", "note muted small", turn.note));
    return row;
  }

  function button(text, cls, onClick) {
    const b = el("button", `ghost small ${cls}`, text);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }

  function updateLive(turn) {
    const live = turn.el && turn.el.querySelector(".bubble.a .live");
    if (!live) { render(); return; }
    live.textContent = turn.live;
    live.parentElement.classList.remove("pending");
  }

  // -- talking to the server -----------------------------------------------------------------------
  async function showTree(turn) {
    let trace = turn.trace;
    if (!trace) {
      const res = await fetch(`/api/traces/${encodeURIComponent(turn.traceId)}`, { headers: headers(false) });
      if (!res.ok) return;
      trace = turn.trace = (await res.json()).trace;
    }
    if (trace) document.dispatchEvent(new CustomEvent("gaji:show", { detail: { trace, index: turn.index } }));
  }

  async function sendFeedback(turn, rating, correct) {
    const body = { trace_id: turn.traceId, rating };
    if (correct) body.correct_answer = correct;
    const res = await fetch("/api/feedback", { method: "POST", headers: headers(true), body: JSON.stringify(body) });
    if (res.ok) {
      turn.feedback = await res.json();
      turn.note = t("saved");
    } else {
      turn.note = await errorOf(res);
    }
    render();
  }

  async function load() {
    if (!state.id) { render(); return; }
    try {
      const res = await fetch(`/api/conversations/${encodeURIComponent(state.id)}`, { headers: headers(false) });
      if (res.status === 404 || res.status === 400) { setConversation(null); render(); return; }
      if (!res.ok) { render(); return; }
      const conv = await res.json();
      state.turns = conv.turns.map((q) => ({
        question: q.question, standalone: q.standalone, answer: q.answer, traceId: q.id, index: q.index,
        status: q.status === "ok" ? "ok" : "failed", error: q.error, citations: q.citations || [],
        feedback: q.feedback,
      }));
    } catch (_) { /* the thread stays empty; asking still works */ }
    render();
  }

  // -- the app's events ------------------------------------------------------------------------------
  document.addEventListener("gaji:ask", (e) => {
    const body = e.detail;
    if (state.id) body.conversation_id = state.id;
    state.current = { question: body.question, status: "running", live: "", draft: 0 };
    state.turns.push(state.current);
    render();
  });

  document.addEventListener("gaji:event", (e) => {
    const turn = state.current;
    if (!turn) return;
    const { name, data } = e.detail;
    if (name === "start") {
      turn.traceId = data.trace_id;
      turn.index = data.index;
      setConversation(data.conversation_id);
    } else if (name === "node" && data.kind === "rewrite") {
      turn.standalone = data.filled_question;
      render();
    } else if (name === "answer") {
      if (data.draft !== turn.draft) { turn.draft = data.draft; turn.live = ""; }
      turn.live += data.delta;
      updateLive(turn);
    } else if (name === "final") {
      Object.assign(turn, { status: "ok", answer: data.answer, citations: data.citations || [], trace: data.trace,
                            traceId: data.trace_id || turn.traceId });
      state.current = null;
      render();
      document.dispatchEvent(new CustomEvent("gaji:conversation", { detail: { id: state.id } }));
    } else if (name === "error") {
      Object.assign(turn, { status: "failed", error: window.gajiI18n.renderMsg(data.msg, lang()) || data.error,
                            trace: data.trace || null });
      state.current = null;
      render();
    }
  });

  document.addEventListener("gaji:done", () => {
    const turn = state.current;
    if (!turn) return;
    state.current = null;
    if (!turn.traceId) {  // refused before it started (the app shows why): not a turn of the conversation
      state.turns = state.turns.filter((x) => x !== turn);
      load();  // a conversation the server no longer knows is dropped
      return;
    }
    Object.assign(turn, { status: "failed", error: t("stopped") });
    render();
  });

  // the conversations panel (conversations.js) reopens a stored conversation: it continues from here
  document.addEventListener("gaji:open-conversation", (e) => {
    if (state.current) return;
    setConversation(e.detail.id);
    state.turns = [];
    load().then(() => {
      const last = state.turns[state.turns.length - 1];
      if (last && last.traceId) showTree(last);
      document.dispatchEvent(new CustomEvent("gaji:conversation", { detail: { id: state.id } }));
    });
  });

  new MutationObserver(render).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  document.addEventListener("DOMContentLoaded", load);
})();
