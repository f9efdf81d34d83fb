// gaji web page, a cited passage in its document: /passage?index=NAME&id=CHUNK_ID&hl=TEXT asks
// GET /api/indexes/{index}/passage and shows the document's text with the cited passage marked and scrolled to
// (and `hl`, the answer, marked inside it). The index keeps no original files, so the page says it shows the
// indexed text. Server data is inserted as text (textContent), never as HTML.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const I = () => window.gajiI18n;
  const q = new URLSearchParams(window.location.search);
  const lang = localStorage.getItem("gaji.lang") || ((navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en");

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function marked(text, needle) {
    const frag = document.createDocumentFragment();
    const n = (needle || "").trim();
    const at = n.length >= 2 ? text.toLowerCase().indexOf(n.toLowerCase()) : -1;
    if (at < 0) { frag.append(document.createTextNode(text)); return frag; }
    frag.append(document.createTextNode(text.slice(0, at)), el("mark", "hl-ans", text.slice(at, at + n.length)),
      document.createTextNode(text.slice(at + n.length)));
    return frag;
  }

  async function load() {
    const key = sessionStorage.getItem("gaji.key");
    const res = await fetch(`/api/indexes/${encodeURIComponent(q.get("index") || "")}/passage?id=${encodeURIComponent(q.get("id") || "")}`,
      { headers: key ? { "X-API-Key": key } : {} });
    if (res.status === 401) { $("key-panel").classList.remove("hidden"); return; }
    if (!res.ok) { $("doc-note").textContent = I().tr("passage.missing"); return; }
    const p = await res.json();
    $("doc-title").textContent = p.title || p.file;
    const cited = p.chunks.find((c) => c.id === p.id) || p;
    $("doc-where").textContent = I().location(cited.location || p.location) || p.file;
    $("doc-note").textContent = p.original ? "" : I().tr("passage.noFile");
    const box = $("doc-text");
    box.replaceChildren();
    let target = null;
    for (const c of p.chunks) {
      const para = el("p", "doc-chunk");
      para.dataset.id = c.id;
      if (c.id === p.id) {
        para.classList.add("cited");
        para.title = I().tr("passage.cited");
        para.append(marked(c.text, q.get("hl")));
        target = para;
      } else {
        para.textContent = c.text;
      }
      box.append(para);
    }
    if (target) target.scrollIntoView({ block: "center" });
  }

  function init() {
    document.documentElement.lang = lang;
    for (const e of document.querySelectorAll("[data-i18n-id]")) e.textContent = I().tr(e.dataset.i18nId);
    document.title = `gaji · ${I().tr("passage.title")}`;
    $("key-save").addEventListener("click", () => {
      sessionStorage.setItem("gaji.key", $("api-key").value.trim());
      $("key-panel").classList.add("hidden");
      load();
    });
    load().catch((e) => { $("doc-note").textContent = e.message; });
  }

  document.addEventListener("DOMContentLoaded", init);
})();
