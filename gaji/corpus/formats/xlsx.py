"""XLSX with openpyxl (MIT): sheet by sheet; the first non-empty row is the header and every other
row becomes one line that repeats it ("부서: 모바일사업부 · 예산: 48억 원"), tagged with its row
number so citations can say "rows 2–5". Each line starts with its row number ("3행 · 부서: 등대사업부 ·
…", gaji.corpus.rowcite), so a passage shows which row a line is and a citation can name the row that
holds the answer. Cached formula values are read (not the formulas)."""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

from gaji.corpus.rowcite import row_prefix

from .base import ROW_SEP, Block, Parsed, row_line

__all__ = ["read"]


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else f"{v:.10g}"
    if isinstance(v, _dt.datetime):
        return v.date().isoformat() if v.time() == _dt.time() else v.isoformat(sep=" ", timespec="minutes")
    if isinstance(v, (_dt.date, _dt.time)):
        return v.isoformat()
    return " ".join(str(v).split())


def read(path: Path) -> Parsed:
    import openpyxl

    wb = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    blocks: list[Block] = []
    try:
        for ws in wb.worksheets:
            header: list[str] | None = None
            for r, values in enumerate(ws.iter_rows(values_only=True), 1):
                cells = [_cell(v) for v in values]
                if not any(cells):
                    continue
                if header is None:
                    header = cells
                    label = " ".join(header)  # the sheet's language, for the row labels
                    blocks.append(Block(row_prefix(r, label) + ROW_SEP.join(c for c in cells if c), "row",
                                        unit=ws.title, row=r))
                    continue
                line = row_line(header, cells)
                if line:
                    blocks.append(Block(row_prefix(r, label) + line, "row", unit=ws.title, row=r))
        return Parsed(blocks, unit="sheet", units_total=len(wb.worksheets))
    finally:
        wb.close()
