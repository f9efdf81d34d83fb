// gaji web page, what the panels share: making elements with text (never HTML), the request headers (the API
// key this tab saved), reading an error the server sent, and a date in the page's language. Loaded before the
// panels (documents.js, conversation.js, conversations.js, upload.js):
//   const { $, el, headers, errorOf, when } = window.gajiDom;
//   el("td", "num", 3)                        an element with a class and text (textContent)
//   fetch(url, { headers: headers(true) })    JSON body + X-API-Key; headers(false, { "Accept-Language": "ko" })
//   note = await errorOf(res)                 the server's message (a table message in the page's language)
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function headers(json, extra) {
    const h = { ...(extra || {}) };
    if (json) h["Content-Type"] = "application/json";
    const key = sessionStorage.getItem("gaji.key");
    if (key) h["X-API-Key"] = key;
    return h;
  }

  /** What a failed response says: its table message in the page's language, else its error, else the status. */
  async function errorOf(res) {
    try {
      const body = await res.json();
      return window.gajiI18n.renderMsg(body.msg) || body.error || `HTTP ${res.status}`;
    } catch (_) { return `HTTP ${res.status}`; }
  }

  /** An ISO time as the page's language writes a date and a time; the text itself when it is no date. */
  function when(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return iso;
    return d.toLocaleString(window.gajiI18n.lang() === "ko" ? "ko-KR" : "en-US", { dateStyle: "medium", timeStyle: "short" });
  }

  window.gajiDom = { $, el, headers, errorOf, when };
})();
