from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def korean_font() -> str:
    """A Korean TTF for writing test PDFs; the test skips (saying why) without one."""
    pytest.importorskip("reportlab", reason="reportlab (the test extra) writes the test PDFs")
    from gaji.bench.docgen import korean_font as find

    font = find()
    if font is None:
        pytest.skip("no Korean TrueType font: install Debian's fonts-nanum (.ci/install-browser.sh does)")
    return font
