import pytest

from gaji.errors import ConfigError
from gaji.registry import METHODS, Registry


def test_unknown_name_lists_known_ones():
    r = Registry("widget")
    r.register("a", help="first")(object())
    with pytest.raises(ConfigError, match="unknown widget 'b'; known: a"):
        r.get("b")


def test_double_registration_is_an_error():
    r = Registry("widget")
    r.register("a")(1)
    with pytest.raises(ValueError):
        r.register("a")(2)


def test_core_methods_are_registered():
    assert {"nor", "oner"} <= set(METHODS.names())


def test_declared_options_are_checked_and_typed():
    r = Registry("retriever")
    r.register("tree", options={"max_depth": int, "base": str, "fast": bool, "rrf_k": float})(object())
    assert r.parse_options("tree", {"max_depth": "1", "base": "bm25", "fast": "yes", "rrf_k": "30"}) == {
        "max_depth": 1, "base": "bm25", "fast": True, "rrf_k": 30.0}
    with pytest.raises(ConfigError, match="retriever 'tree' has no option 'depth'; its options: base, fast, max_depth, rrf_k"):
        r.parse_options("tree", {"depth": "1"})
    with pytest.raises(ConfigError, match="option 'max_depth' of retriever 'tree': cannot read 'two' as int"):
        r.parse_options("tree", {"max_depth": "two"})
    with pytest.raises(ConfigError, match="option 'fast' of retriever 'tree': cannot read 'maybe' as bool"):
        r.parse_options("tree", {"fast": "maybe"})
    r.register("plain")(object())
    with pytest.raises(ConfigError, match="its options: none"):
        r.parse_options("plain", {"k": "1"})


def test_the_real_retrievers_declare_their_options():
    from gaji.registry import RETRIEVERS

    assert RETRIEVERS.parse_options("contre", {"max_depth": "1"}) == {"max_depth": 1}
    assert RETRIEVERS.parse_options("hybrid", {"rrf_k": "30"}) == {"rrf_k": 30.0}
    with pytest.raises(ConfigError, match="bm25"):
        RETRIEVERS.parse_options("bm25", {"rrf_k": "30"})


def test_retriever_options_are_bounded_like_method_options():
    from gaji.registry import RETRIEVERS

    with pytest.raises(ConfigError, match="option 'max_depth' of retriever 'contre' must be between 0 and 8, not 50"):
        RETRIEVERS.parse_options("contre", {"max_depth": "50"})
    with pytest.raises(ConfigError, match="option 'node_k' of retriever 'contre' must be between 1 and 100"):
        RETRIEVERS.parse_options("contre", {"node_k": "100000"})
