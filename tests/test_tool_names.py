"""`adapters.tools.names`: the host-safe tool names and the per-request map (examples; the
injectivity and round-trip properties are in property_tests/test_tool_name_properties.py)."""

from __future__ import annotations

import hashlib

import pytest

from agent_as_model.adapters.tools.names import HOST_NAME_PATTERN, NameMap, host_name
from agent_as_model.errors import CallError


def digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


@pytest.mark.parametrize("name", ["get_weather", "a", "A-Z_09", "x" * 64, "-leading-dash"])
def test_names_that_fit_are_kept(name: str) -> None:
    assert host_name(name) == name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("weather.get", "weather_get_b8affdae"),
        ("search docs", "search_docs_0017ff16"),
        ("é", "__" + digest("é")),
        ("x" * 65, "x" * 55 + "_" + digest("x" * 65)),
        ("", "_" + digest("")),
    ],
)
def test_other_names_become_safe_characters_and_a_digest(name: str, expected: str) -> None:
    assert host_name(name) == expected
    assert HOST_NAME_PATTERN.fullmatch(expected)


def test_a_long_unsafe_name_is_cut_to_64() -> None:
    name = "tool." * 40
    mapped = host_name(name)
    assert len(mapped) == 64 and mapped.endswith("_" + digest(name))


def test_names_differing_only_in_unsafe_characters_stay_apart() -> None:
    assert host_name("a.b") != host_name("a b") != host_name("a/b")


def test_a_lone_surrogate_does_not_crash_the_mapping() -> None:
    assert HOST_NAME_PATTERN.fullmatch(host_name("bad\ud800"))


def test_the_map_goes_both_ways_and_knows_what_was_renamed() -> None:
    names = NameMap.for_names(["get_weather", "weather.get", "get_weather"])
    assert names.to_host("weather.get") == "weather_get_b8affdae"
    assert names.to_host("get_weather") == "get_weather"
    from_host = names.from_host_map()
    assert len(from_host) == 2
    assert from_host["weather_get_b8affdae"] == "weather.get"
    assert from_host["get_weather"] == "get_weather"
    assert "weather.get" not in from_host  # the host never saw that name
    assert names.from_host_map() == {"get_weather": "get_weather", "weather_get_b8affdae": "weather.get"}
    assert names.renamed() == {"weather_get_b8affdae": "weather.get"}


def test_an_unknown_caller_name_is_a_bug_upstream() -> None:
    with pytest.raises(KeyError):
        NameMap.for_names(["a"]).to_host("b")


def test_a_caller_name_equal_to_another_names_mapping_is_refused_naming_both() -> None:
    with pytest.raises(CallError) as caught:
        NameMap([("tools[0].name", "a.b"), ("messages[2].content[0].name", "a_b_" + digest("a.b"))])
    err = caught.value
    assert err.kind == "caller" and not err.sent
    assert err.path == "messages[2].content[0].name"
    assert (
        f"'a_b_{digest('a.b')}' and tool name 'a.b' at tools[0].name both map to the host name" in err.reason
    )
    assert "rename one" in err.reason


def test_for_names_puts_its_path_on_a_collision() -> None:
    with pytest.raises(CallError) as caught:
        NameMap.for_names(["a_b_" + digest("a.b"), "a.b"])
    assert caught.value.path == "tools"
