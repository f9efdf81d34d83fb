// gaji web page, adding documents: files dropped on (or picked in) the drop zone are sent, one request per
// file, to POST /api/indexes/{index}/files as base64 in JSON (the server takes writes as JSON only, which a
// page on another site cannot send without the server's consent). The index is the one chosen in the
// question form. Each file gets a line: how many chunks it added, or why it was refused. Server data (file
// names, reasons) is always inserted as text (textContent), never as HTML.
"use strict";

(() => {
  const SUFFIXES = [".hwp", ".hwpx", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm", ".txt", ".md"];
  const { $, el, headers: withKey } = window.gajiDom; // dom.js
  const lang = () => (document.documentElement.lang === "ko" ? "ko" : "en");
  const t = (k, params) => window.gajiI18n.tr(`upload.${k}`, params, lang()); // the message table (i18n.js)
  const rows = []; // {name, state: "sending"|"added"|"refused"|"failed", chunks, format, reason, notices, li}
  let queue = Promise.resolve();

  // the server tells a refused file's reason in the page's language
  const headers = () => withKey(true, { "Accept-Language": lang() });

  const index = () => ($("index") && !$("index").disabled ? $("index").value : "");

  function showCard() {
    const name = index();
    $("upload-card").classList.toggle("hidden", !name);
    $("upload-index").textContent = name;
  }

  function applyLang() {
    for (const e of document.querySelectorAll("[data-up]")) e.textContent = t(e.dataset.up);
    for (const r of rows) renderRow(r);
  }

  function renderRow(r) {
    const li = r.li;
    li.className = `upload-row up-${r.state}`;
    let what = t("sending");
    if (r.state === "added") what = t(r.chunks === 1 ? "added_one" : "added", { n: r.chunks });
    else if (r.state === "refused") what = `${t("refused")}: ${window.gajiI18n.renderMsg(r.reasonMsg) || r.reason}`;
    else if (r.state === "failed") what = `${t("failed")}: ${r.reason}`;
    const mark = { sending: "…", added: "✓", refused: "✗", failed: "✗" }[r.state];
    const parts = [el("span", "up-mark", mark), el("span", "up-name", r.name)];
    if (r.format) parts.push(el("span", "badge", r.format));
    parts.push(el("span", "up-what", what));
    li.replaceChildren(...parts);
    for (const n of r.notices || []) li.append(el("div", "muted small up-notice", n));
  }

  function addRow(name) {
    const r = { name, state: "sending", chunks: 0, format: "", reason: "", notices: [], li: el("li") };
    rows.push(r);
    $("upload-results").prepend(r.li);
    renderRow(r);
    return r;
  }

  function readBase64(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
      reader.onerror = () => reject(new Error(t("unreadable")));
      reader.readAsDataURL(file);
    });
  }

  async function send(file, r, target) {
    try {
      const content = await readBase64(file);
      const res = await fetch(`/api/indexes/${encodeURIComponent(target)}/files`, {
        method: "POST", headers: headers(), body: JSON.stringify({ files: [{ name: file.name, content_base64: content }] }),
      });
      let body = {};
      try { body = await res.json(); } catch (_) { /* not JSON */ }
      const one = (body.files || [])[0];
      if (one) {
        Object.assign(r, { state: one.status === "added" ? "added" : "refused", chunks: one.chunks || 0,
                           format: one.format || "", reason: one.reason || "", reasonMsg: one.reason_msg || null,
                           notices: one.notices || [] });
      } else {
        Object.assign(r, { state: "failed", reason: body.error || `HTTP ${res.status}` });
        if (res.status === 401) $("key-panel").classList.remove("hidden");
      }
    } catch (e) {
      Object.assign(r, { state: "failed", reason: e.message });
    }
    renderRow(r);
    document.dispatchEvent(new CustomEvent("gaji:documents-changed", { detail: { index: target } }));
  }

  function upload(files) {
    const target = index();
    if (!target) return;
    for (const file of files) {
      const r = addRow(file.name);
      const dot = file.name.lastIndexOf(".");
      if (dot < 0 || !SUFFIXES.includes(file.name.slice(dot).toLowerCase())) {
        Object.assign(r, { state: "refused", reason: t("type"), reasonMsg: null });
        renderRow(r);
        continue;
      }
      queue = queue.then(() => send(file, r, target)); // one at a time: the index has one writer anyway
    }
  }

  function init() {
    const zone = $("drop-zone");
    if (!zone) return;
    for (const name of ["dragenter", "dragover"]) {
      zone.addEventListener(name, (e) => { e.preventDefault(); zone.classList.add("over"); });
    }
    for (const name of ["dragleave", "drop"]) zone.addEventListener(name, () => zone.classList.remove("over"));
    zone.addEventListener("drop", (e) => {
      e.preventDefault();
      upload(Array.from(e.dataTransfer.files || []));
    });
    // a file dropped beside the zone would make the browser leave the page to open it
    for (const name of ["dragover", "drop"]) document.addEventListener(name, (e) => e.preventDefault());
    $("upload-input").addEventListener("change", (e) => {
      upload(Array.from(e.target.files || []));
      e.target.value = ""; // the same file can be picked again
    });
    $("index").addEventListener("change", showCard);
    new MutationObserver(showCard).observe($("index"), { childList: true, attributes: true });
    new MutationObserver(applyLang).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    applyLang();
    showCard();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
