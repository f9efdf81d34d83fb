"""The server fixtures of gaji's own serve tests (tests/serve/conftest.py: make_app, live_server, scripted), for the
lab's benchmarks that run against a live server (security, load, injection). Loaded from that file under its own
name, so the lab tests the same app the product tests do."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SERVE_TESTS = Path(__file__).resolve().parents[3] / "tests" / "serve"
sys.path.insert(0, str(SERVE_TESTS))  # its helpers (servefakes) are imported by name

def _loaded_already():
    """The product's serve conftest when pytest has loaded it in this session (a run of tests/ and lab/tests
    together): executing it again would register its test methods twice."""
    target = (SERVE_TESTS / "conftest.py").resolve()
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if f and Path(f).resolve() == target:
            return mod
    return None


_fixtures = _loaded_already()
if _fixtures is None:
    _spec = importlib.util.spec_from_file_location("gaji_serve_test_fixtures", SERVE_TESTS / "conftest.py")
    _fixtures = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _fixtures
    _spec.loader.exec_module(_fixtures)

make_app = _fixtures.make_app
live_server = _fixtures.live_server
scripted = _fixtures.scripted
