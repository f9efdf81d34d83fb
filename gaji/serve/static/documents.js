// gaji web page, the documents panel: the chosen index's files (GET /api/indexes/{index}/documents), one row
// each: name (opening the passage view at its first chunk) with a link to its original file when the index can hand
// it out, format, pages / slides / rows, chunks, when indexed, status. A refused file says why, in the page's
// language (the reason is a message of the table). Remove takes a file's documents out of the index
// (DELETE …/documents?id=…); re-sync reads it again from the folder it came from (POST …/sync). Server data is
// inserted as text (textContent), never as HTML.
"use strict";

(() => {
  const { $, el, headers, errorOf, when } = window.gajiDom; // dom.js
  const I = () => window.gajiI18n;
  const t = (k, params) => I().tr(`docs.${k}`, params);
  const state = { index: "", rows: [], total: 0, busy: false, note: "" };

  const chosen = () => ($("index") && !$("index").disabled ? $("index").value : "");
  const api = (path) => `/api/indexes/${encodeURIComponent(state.index)}${path}`;

  async function load() {
    state.index = chosen();
    $("docs-card").classList.toggle("hidden", !state.index);
    if (!state.index) return;
    try {
      const res = await fetch(api("/documents?limit=500"), { headers: headers(false) });
      if (!res.ok) { state.rows = []; state.note = await errorOf(res); }
      else {
        const body = await res.json();
        state.rows = body.documents;
        state.total = body.total;
      }
    } catch (e) {
      state.note = e.message;
    }
    render();
  }

  function units(u) {
    const out = [];
    for (const [k, key] of [["pages", "pages"], ["slides", "slides"], ["rows", "rows"], ["sections", "sections"]]) {
      if (u && u[k]) out.push(t(key, { n: u[k] }));
    }
    return out.join(", ");
  }

  function button(text, cls, onClick, disabled, title) {
    const b = el("button", `ghost small ${cls}`, text);
    b.type = "button";
    b.disabled = !!disabled || state.busy;
    if (title) b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  function render() {
    $("docs-index").textContent = state.index;
    $("docs-total").textContent = state.total ? `(${state.total})` : "";
    const note = $("docs-note");
    note.textContent = state.note;
    note.classList.toggle("hidden", !state.note);
    const table = $("docs");
    table.replaceChildren();
    if (!state.rows.length) {
      table.append(el("caption", "muted small", t("empty")));
      return;
    }
    const head = el("tr");
    for (const k of ["name", "format", "units", "chunks", "updated", "status"]) head.append(el("th", null, t(k)));
    head.append(el("th"));
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    for (const r of state.rows) tbody.append(row(r));
    table.append(thead, tbody);
  }

  function row(r) {
    const tr = el("tr", `doc doc-${r.status}`);
    tr.dataset.name = r.name;
    const format = r.format === "text" ? t("formatText") : r.format;
    const name = el("td", "doc-name");
    if (r.view_url) {  // the one passage view, at the file's first chunk
      const a = el("a", "doc-view", r.name);
      a.href = `${r.view_url}?lang=${I().lang()}`;
      a.target = "_blank";
      a.rel = "noopener";
      a.title = t("view");
      name.append(a);
    } else {
      name.textContent = r.name;
    }
    if (r.original_url) {  // the original file: a PDF opens in the browser, other formats download
      const o = el("a", "doc-original small", t("original"));
      o.href = r.original_url;
      o.title = t("originalTitle");
      o.target = "_blank";
      o.rel = "noopener";
      if (!/\.pdf$/i.test(r.name)) o.setAttribute("download", r.name.split("/").pop());
      name.append(" ", o);
    }
    tr.append(name, el("td", null, format), el("td", null, units(r.units)),
      el("td", "num", r.status === "indexed" ? r.chunks : ""), el("td", "small", when(r.updated)));
    const status = el("td", "doc-status");
    if (r.status === "refused") {
      status.append(el("span", "badge status-failed", t("refused")));
      status.append(el("div", "doc-reason small", I().renderMsg(r.reason_msg) || r.reason));
    } else {
      status.append(el("span", "badge status-ok", t("indexed")));
    }
    tr.append(status);
    const actions = el("td", "doc-actions");
    if (r.status === "indexed") {
      actions.append(button(t("sync"), "doc-sync", () => resync(r), !r.can_sync, r.can_sync ? "" : t("noSource")));
      actions.append(button(t("remove"), "doc-remove", () => remove(r)));
    }
    tr.append(actions);
    return tr;
  }

  async function act(fn) {
    state.busy = true;
    render();
    try { state.note = await fn(); } catch (e) { state.note = e.message; }
    state.busy = false;
    await load();
  }

  function remove(r) {
    if (!window.confirm(t("confirmRemove", { name: r.name }))) return;
    act(async () => {
      const q = r.documents.map((d) => `id=${encodeURIComponent(d)}`).join("&");
      const res = await fetch(api(`/documents?${q}`), { method: "DELETE", headers: headers(false) });
      return res.ok ? t("removed", { name: r.name }) : errorOf(res);
    });
  }

  function resync(r) {
    act(async () => {
      const res = await fetch(api("/sync"), { method: "POST", headers: headers(true), body: JSON.stringify({ file: r.name }) });
      if (!res.ok) return errorOf(res);
      const b = await res.json();
      return t("synced", { name: r.name, added: b.added.length, changed: b.changed.length, unchanged: b.unchanged });
    });
  }

  function init() {
    if (!$("docs-card")) return;
    $("index").addEventListener("change", () => { state.note = ""; load(); });
    new MutationObserver(load).observe($("index"), { childList: true });
    new MutationObserver(render).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    document.addEventListener("gaji:documents-changed", load);
    load();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
