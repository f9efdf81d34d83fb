// gaji web page: the old address of a cited passage, /passage?index=NAME&id=CHUNK_ID&hl=TEXT, on a server that
// asks for a key. It asks GET /api/indexes/{index}/passage with the key the page holds for the signed link of the
// one passage view (/passage/<token>, rendered by the server) and goes there, the answer to mark (`hl`) and the
// page's language with it. Server data is inserted as text (textContent), never as HTML.
"use strict";

(() => {
  const { $, headers } = window.gajiDom; // dom.js
  const I = () => window.gajiI18n;
  const q = new URLSearchParams(window.location.search);
  const lang = localStorage.getItem("gaji.lang") || ((navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en");

  async function open() {
    const res = await fetch(`/api/indexes/${encodeURIComponent(q.get("index") || "")}/passage?id=${encodeURIComponent(q.get("id") || "")}`,
      { headers: headers(false) });
    if (res.status === 401) { $("key-panel").classList.remove("hidden"); $("doc-note").textContent = ""; return; }
    if (!res.ok) { $("doc-note").textContent = I().tr("passage.missing"); return; }
    const p = await res.json();
    const next = new URLSearchParams({ lang: q.get("lang") || lang });
    if (q.get("hl")) next.set("hl", q.get("hl"));
    window.location.replace(`${p.url}?${next}`);
  }

  function init() {
    document.documentElement.lang = lang;
    for (const e of document.querySelectorAll("[data-i18n-id]")) e.textContent = I().tr(e.dataset.i18nId);
    document.title = `gaji · ${I().tr("passage.title")}`;
    $("key-save").addEventListener("click", () => {
      sessionStorage.setItem("gaji.key", $("api-key").value.trim());
      $("key-panel").classList.add("hidden");
      open().catch((e) => { $("doc-note").textContent = e.message; });
    });
    open().catch((e) => { $("doc-note").textContent = e.message; });
  }

  document.addEventListener("DOMContentLoaded", init);
})();
