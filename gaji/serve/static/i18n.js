// gaji web page, words: the message table (gaji/message_table.py, served as /messages.js) for every script of
// the page, so the page, the CLI and the server say the same things in Korean and in English.
//   gajiI18n.tr("docs.chunks")                      the label in the page's language
//   gajiI18n.tr("upload.added", { n: 3 })           {name} slots filled
//   gajiI18n.renderMsg({ id, params })              a message the server sent (a refusal's reason)
"use strict";

(() => {
  const M = window.GAJI_MESSAGES || { ko: {}, en: {} };
  const lang = () => (document.documentElement.lang === "ko" ? "ko" : "en");
  const has = (id) => id in (M.en || {});

  function tr(id, params, l) {
    const L = l || lang();
    let s = (M[L] && M[L][id]) ?? (M.en && M.en[id]) ?? id;
    if (params) {
      s = s.replace(/\{(\w+)(?:!([rs]))?\}/g, (m, k, conv) => {
        if (!(k in params)) return m;
        return conv === "r" ? `'${params[k]}'` : String(params[k]);
      });
    }
    return s;
  }

  /** A message of the table as the server sends it ({id, params}; a parameter may be a message itself). */
  function renderMsg(msg, l) {
    if (!msg || !msg.id || !has(msg.id)) return "";
    const p = {};
    for (const [k, v] of Object.entries(msg.params || {})) p[k] = v && typeof v === "object" ? renderMsg(v, l) : v;
    return tr(msg.id, p, l);
  }

  /** Where a passage sits in its file ("보고서.pdf · 3쪽", "예산.xlsx · 부서별 · 12행"). */
  function location(l, L) {
    if (!l) return "";
    const parts = [];
    if (l.file) parts.push(l.file);
    if (l.page != null) parts.push(tr("loc.page", { n: l.page }, L));
    if (l.slide != null) parts.push(tr("loc.slide", { n: l.slide }, L));
    if (l.sheet) parts.push(l.sheet);
    if (l.rows && l.rows.length) {
      const [a, b] = [l.rows[0], l.rows[l.rows.length - 1]];
      parts.push(a === b ? tr("loc.row", { n: a }, L) : tr("loc.rows", { a, b }, L));
    }
    if (l.section && l.section.length) parts.push(l.section.join(" \u203a "));
    return parts.join(" \u00b7 ");
  }

  /** The address of the page that shows a cited passage in its document. */
  function passageUrl(index, pid, highlight) {
    const q = new URLSearchParams({ index: index || "", id: pid });
    if (highlight) q.set("hl", highlight);
    q.set("lang", lang());
    return `/passage?${q}`;
  }

  window.gajiI18n = { tr, has, renderMsg, lang, location, passageUrl };
})();
