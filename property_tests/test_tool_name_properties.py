"""The host-name mapping is injective and round-trips, for any set of distinct names.

Collisions need a caller name built to equal another's mapping (or a 32-bit digest clash);
random names never do that, so every random set must map, fit the host pattern, and map back.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent_as_model.adapters.tools.names import HOST_NAME_PATTERN, NameMap, host_name
from property_tests.budget import budget

# Safe names, near-safe ones (a dot, a space), and anything at all, up to MCP's 128 characters.
SAFE = st.from_regex(r"[A-Za-z0-9_-]{1,70}", fullmatch=True)
NEAR = st.builds(lambda a, sep, b: a + sep + b, SAFE, st.sampled_from([".", " ", "/", ":", "é"]), SAFE)
ANY = st.text(min_size=1, max_size=128)
NAMES = st.lists(st.one_of(SAFE, NEAR, ANY), min_size=1, max_size=12, unique=True)


@budget(300)
@given(NAMES)
def test_distinct_names_map_injectively_and_round_trip(names: list[str]) -> None:
    mapping = NameMap.for_names(names)
    hosted = [mapping.to_host(name) for name in names]
    assert len(set(hosted)) == len(names)
    for name, host in zip(names, hosted, strict=True):
        assert HOST_NAME_PATTERN.fullmatch(host)
        assert host == host_name(name)  # depends on the name alone, not on its neighbours
        assert mapping.from_host_map()[host] == name
    assert set(mapping.renamed()) == {h for n, h in zip(names, hosted, strict=True) if h != n}


@budget(200)
@given(ANY)
def test_a_name_is_kept_exactly_when_it_fits(name: str) -> None:
    assert (host_name(name) == name) == bool(HOST_NAME_PATTERN.fullmatch(name))
