"""HWP 5 덧말 (ruby): the text a binary HWP keeps outside its paragraph text.

In HWP 5 a 덧말 is an extended control character (code 23, control id ``tdut``) in a paragraph's PARA_TEXT
record; its text is not there but in the paragraph's CTRL_HEADER record of that control: the id, then the main
text and the annotation as HWP strings (a UINT16 count of UTF-16 units, then the units), then position, size
ratio, option, style and alignment (HWP 5.0 spec, "덧말"). syhwp skips the control character and finds no
paragraphs under the control, so the text was lost; a paragraph made of 덧말 only read as empty.

`with_dutmal_text` rewrites a section's records before syhwp builds its paragraphs: each 덧말 control
character becomes its text in place, "본말(덧말)" (just "본말" when the annotation is empty), as the HWPX
reader keeps it (hwpx_objects.dutmal_text). `read_hwp5` is syhwp's HWP 5 reader over those records.
"""
from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["DUTMAL_ID", "dutmal_text", "with_dutmal_text", "read_hwp5"]

PARA_TEXT, CTRL_HEADER = 67, 71
DUTMAL_ID = b"tdut"[::-1]  # control ids are stored as a little-endian 32-bit number: "tdut" reads b"tudt"
_DUTMAL_CHAR = 23  # the extended control character of 덧말 / 글자 겹침 (8 UTF-16 units, the id inside)


def _hwp_string(payload: bytes, at: int) -> tuple[str, int]:
    """The HWP string at `at` (UINT16 count, then that many UTF-16LE units) and the offset after it; an
    empty string for a payload cut short."""
    if at + 2 > len(payload):
        return "", len(payload)
    (n,) = struct.unpack_from("<H", payload, at)
    end = min(len(payload), at + 2 + 2 * n)
    return payload[at + 2:end].decode("utf-16-le", "replace"), end


def dutmal_text(ctrl_payload: bytes) -> str:
    """"본말(덧말)" for one 덧말 CTRL_HEADER payload (id first)."""
    main, at = _hwp_string(ctrl_payload, 4)
    sub, _ = _hwp_string(ctrl_payload, at)
    main, sub = " ".join(main.split()), " ".join(sub.split())
    return f"{main}({sub})" if main and sub else main or sub


def _is_dutmal_char(units: tuple[int, ...], i: int) -> bool:
    return (units[i] == _DUTMAL_CHAR and i + 7 < len(units)
            and struct.pack("<HH", units[i + 1], units[i + 2]) == DUTMAL_ID)


def _rewrite_text(payload: bytes, texts: list[str]) -> bytes:
    """The PARA_TEXT payload with its n-th 덧말 control character replaced by texts[n] (a character with no
    text left, in a damaged file, stays as it was)."""
    n = len(payload) // 2
    units = struct.unpack_from(f"<{n}H", payload)
    out = bytearray()
    i, k = 0, 0
    while i < n:
        if _is_dutmal_char(units, i) and k < len(texts):
            out += texts[k].encode("utf-16-le")
            k += 1
            i += 8
        else:
            out += payload[2 * i:2 * i + 2]
            i += 1
    return bytes(out) + payload[2 * n:]


def with_dutmal_text(records: list[tuple[int, int, bytes]]) -> list[tuple[int, int, bytes]]:
    """A section's records (tag, level, payload) with each paragraph's 덧말 written into its PARA_TEXT.

    A paragraph's PARA_TEXT and CTRL_HEADERs are its children: the records after it one level deeper, up to
    the next record at its own level or above. Its n-th 덧말 character goes with its n-th 덧말 control."""
    out = list(records)
    for i, (tag, level, payload) in enumerate(records):
        if tag != PARA_TEXT or DUTMAL_ID not in payload:
            continue
        texts = []
        for tag2, level2, payload2 in records[i + 1:]:
            if level2 < level:
                break
            if level2 == level and tag2 == CTRL_HEADER and payload2[:4] == DUTMAL_ID:
                texts.append(dutmal_text(payload2))
        if texts:
            out[i] = (tag, level, _rewrite_text(payload, texts))
    return out


def read_hwp5(path: Path):
    """syhwp's Document of an HWP 5 file, its 덧말 read as text (syhwp's own steps: the sections' records,
    the record tree, the top-level paragraphs)."""
    from syhwp import Document
    from syhwp import _hwp5

    version, sections = _hwp5._read_hwp5(str(path))
    blocks: list = []
    for records in sections:
        root = _hwp5._build_tree(with_dutmal_text(records))
        for node in root.children:
            if node.tag == _hwp5.HWPTAG_PARA_HEADER:
                _hwp5._emit_paragraph(node, blocks)
    return Document(format="hwp5", blocks=blocks, version=version)
