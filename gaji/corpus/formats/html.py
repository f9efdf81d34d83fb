"""HTML with selectolax (Lexbor, MIT): the page's main content only.

Scripts, styles, forms, navigation, headers, footers, sidebars and breadcrumbs are dropped (by tag,
ARIA role, and the class/id names intranet templates use: gnb/lnb/snb, menu, nav, header, footer,
sidebar, breadcrumb, …); then the main container is read when the page has one (<main>, <article>,
role=main, #content/#contents), else the body. Headings h1-h6 give the section path, tables become
header-keyed rows. The charset comes from a BOM or <meta charset>, else UTF-8, else CP949 (EUC-KR),
which older Korean intranet pages still use.
"""
from __future__ import annotations

import re
from pathlib import Path

from .base import Block, Parsed, table_blocks

__all__ = ["read", "read_html"]

_DROP_TAGS = "script,style,noscript,template,nav,header,footer,aside,form,iframe,svg,canvas,button,select,dialog,menu"
_DROP_ROLES = "[role=navigation],[role=banner],[role=contentinfo],[role=complementary],[role=search],[aria-hidden=true]"
_BOILERPLATE_RE = re.compile(
    r"(?:^|[\s_-])(?:gnb|lnb|snb|nav|navbar|navigation|menu|header|footer|sidebar|side-bar|breadcrumbs?|"
    r"skip|skipnav|quickmenu|banner|copyright|top-?bar|popup|cookie)(?:$|[\s_-])",
    re.I,
)
_MAIN = ("main", "article", "[role=main]", "#content", "#contents", "#main", "#main-content", ".content", ".contents")
_BLOCK_TAGS = {
    "p", "div", "section", "article", "main", "li", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote", "figure",
    "figcaption", "address", "details", "summary", "caption", "center", "hr", "tr", "body",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_META_CHARSET_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.I)


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    m = _META_CHARSET_RE.search(data[:4096])
    if m:
        name = m.group(1).decode("ascii", "replace").lower()
        name = {"euc-kr": "cp949", "ks_c_5601-1987": "cp949", "x-windows-949": "cp949"}.get(name, name)
        try:
            return data.decode(name)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp949", "replace")


def _is_boilerplate(node) -> bool:
    attrs = node.attributes
    names = " ".join(v for k, v in attrs.items() if k in ("id", "class") and v)
    return bool(names) and bool(_BOILERPLATE_RE.search(names))


def _table_grid(table) -> list[list[str]]:
    grid = []
    for tr in table.css("tr"):
        if tr.parent is not None and tr.parent.tag not in ("table", "thead", "tbody", "tfoot"):
            continue
        cells = [" ".join(c.text(deep=True, separator=" ").split()) for c in tr.iter() if c.tag in ("td", "th")]
        grid.append(cells)
    return grid


def _walk(node, blocks: list[Block], buf: list[str]) -> None:
    """Blocks of `node`'s subtree in document order. Iterative (a stack of child iterators), so a deeply
    nested page costs no Python recursion; a block element's text is flushed before and after it."""
    def flush() -> None:
        text = " ".join("".join(buf).split())
        buf.clear()
        if text:
            blocks.append(Block(text))

    stack = [(node.iter(include_text=True), False)]
    while stack:
        it, is_block = stack[-1]
        child = next(it, None)
        if child is None:
            stack.pop()
            if is_block:
                flush()
            continue
        tag = child.tag
        if tag == "-text":
            buf.append(child.text_content or "")
        elif tag in _HEADINGS:
            flush()
            text = " ".join(child.text(deep=True, separator=" ").split())
            if text:
                blocks.append(Block(text, "heading", _HEADINGS[tag]))
        elif tag == "table":
            flush()
            blocks.extend(table_blocks(_table_grid(child)))
        elif tag == "br":
            flush()
        elif tag in _BLOCK_TAGS:
            flush()
            stack.append((child.iter(include_text=True), True))
        elif tag in ("img", "-comment"):
            continue
        else:
            stack.append((child.iter(include_text=True), False))


def read_html(html: str) -> Parsed:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    drop = tree.css(_DROP_TAGS + "," + _DROP_ROLES) + [n for n in tree.css("[id],[class]") if _is_boilerplate(n)]
    ids = {n.mem_id for n in drop}
    outermost, seen = [], set()
    for n in drop:  # decided before removing anything: removing a node frees its subtree
        parent = n.parent
        while parent is not None and parent.mem_id not in ids:
            parent = parent.parent
        if parent is None and n.mem_id not in seen:
            seen.add(n.mem_id)
            outermost.append(n)
    for n in outermost:
        n.decompose()
    root = None
    for sel in _MAIN:
        root = tree.css_first(sel)
        if root is not None and root.text(strip=True):
            break
        root = None
    root = root or tree.body or tree.root
    blocks: list[Block] = []
    buf: list[str] = []
    if root is not None:
        _walk(root, blocks, buf)
        text = " ".join("".join(buf).split())
        if text:
            blocks.append(Block(text))
    return Parsed(blocks, title=title)


def read(path: Path) -> Parsed:
    return read_html(_decode(path.read_bytes()))
