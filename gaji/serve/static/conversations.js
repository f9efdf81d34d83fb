// gaji web page, the conversations panel: the stored conversations (GET /api/conversations), the most recent
// first. Opening one shows its thread (conversation.js) and its last answer's tree; the next question continues
// it. A server without a history database says so. Server data is inserted as text, never as HTML.
"use strict";

(() => {
  const { $, el, headers, when } = window.gajiDom; // dom.js
  const I = () => window.gajiI18n;
  const t = (k, params) => I().tr(`conv.${k}`, params);
  const state = { items: [], off: false, current: sessionStorage.getItem("gaji.conversation") || null };

  async function load() {
    try {
      const res = await fetch("/api/conversations?limit=30", { headers: headers(false) });
      state.off = res.status === 400;
      state.items = res.ok ? (await res.json()).conversations : [];
    } catch (_) {
      state.items = [];
    }
    render();
  }

  function render() {
    const card = $("conversations-card");
    card.classList.remove("hidden");
    const list = $("conversations");
    list.replaceChildren();
    if (state.off || !state.items.length) {
      list.append(el("li", "muted small", state.off ? t("noHistory") : t("listEmpty")));
      return;
    }
    for (const c of state.items) {
      const li = el("li", `conv-item${c.id === state.current ? " current" : ""}`);
      li.dataset.id = c.id;
      const open = el("button", "ghost small conv-open", c.title || c.id);
      open.type = "button";
      open.title = t("open");
      open.addEventListener("click", () => {
        document.dispatchEvent(new CustomEvent("gaji:open-conversation", { detail: { id: c.id } }));
      });
      li.append(open, el("span", "muted small", `${t("questions", { n: c.questions })} · ${when(c.last_at)}`));
      if (c.id === state.current) li.append(el("span", "badge", t("current")));
      list.append(li);
    }
  }

  function init() {
    if (!$("conversations-card")) return;
    document.addEventListener("gaji:conversation", (e) => { state.current = e.detail.id; load(); });
    new MutationObserver(render).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    load();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
