"""For every registered dialect (the test dialect of test_extra_dialect.py
included), each key its listed input schema names is read by the parse path, and each key the
parse path reads is listed.

"Read" is observed, not declared: the parse path is given the arguments through a mapping that
notes every key it looks up (`get`, `[]`, `in`), present or not, over a set of bodies (the
dialect's EXAMPLE on the full path, with a persona so the request object is read, and with each
listed key given a wrong value or its default). A key it looks up that the schema does not list
is a feature of the server the listing hides from this product (a shared reader the dialect
cannot be given, as `backend` once was for the test dialect), or a reader that looks at a key the
unknown-key check refuses. "Listed is read" is shown by behaviour: some wrong value of each
listed key is refused with an error naming that key, so no key is accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from mcp import Client

from agent_as_model.adapters.dialects import DIALECTS, Dialect, extensions, register, unregister
from agent_as_model.adapters.dialects.parse import parse_request
from agent_as_model.errors import CallError
from tests import test_extra_dialect
from tests.helpers import server_params
from tests.scripted_host import ERAS, ScriptedHost, connect

# Every registered dialect: the built-in ones, and the test dialect registered below.
NAMES = [*DIALECTS, test_extra_dialect.NAME]

# Values tried in turn until one is refused: most keys refuse `true` (a wrong type, or a switch
# that cannot be honoured); a boolean refuses 2; the rest refuse a value that changes meaning.
WRONG = (True, 2, ["audio"], {"type": "no such type"}, "\x00")


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(test_extra_dialect.NOTES)
    try:
        assert list(DIALECTS) == NAMES, "a registered dialect is missing from this test"
        yield
    finally:
        unregister(test_extra_dialect.NAME)


class Reads(Mapping[str, Any]):
    """The arguments, noting every key looked up."""

    def __init__(self, args: Mapping[str, Any]) -> None:
        self._args = args
        self.keys_read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.keys_read.add(key)
        return self._args[key]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.keys_read.add(key)
        return key in self._args

    def get(self, key: str, default: Any = None) -> Any:
        self.keys_read.add(key)
        return self._args.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._args)

    def __len__(self) -> int:
        return len(self._args)


def listed(dialect: Dialect) -> dict[str, Any]:
    properties: dict[str, Any] = dialect.INPUT_SCHEMA["properties"]
    return properties


def example(dialect: Dialect) -> dict[str, Any]:
    assert dialect.EXAMPLE is not None, f"{dialect.NAME} has no EXAMPLE: its keys cannot be probed"
    return dict(dialect.EXAMPLE)


def full_path(dialect: Dialect) -> dict[str, Any]:
    """The EXAMPLE on the full parse path: with one listed key beyond the plain body, given as
    null (which every reader takes as not given), so no reader is skipped."""
    beyond = next(key for key in listed(dialect) if key not in dialect.body.plain)
    return {**example(dialect), beyond: None}


def parse_noting(dialect: Dialect, args: Mapping[str, Any]) -> tuple[set[str], CallError | None]:
    """The keys the parse read, and its refusal: raised, or (for a product a provider of its own
    may be given as it was written) one that holds for the host alone, which the router applies."""
    reads = Reads(args)
    try:
        request = parse_request(dialect, reads)
    except CallError as err:
        return reads.keys_read, err
    return reads.keys_read, request.host_only[0] if request.host_only else None


def at(err: CallError | None, key: str) -> bool:
    """Whether the error is about `key` (or something inside it), and not an unknown key."""
    if err is None or "unknown parameter" in err.reason:
        return False
    rest = err.path[len(key) :]
    return err.path.startswith(key) and (not rest or rest[0] in ".[")


def wrong_value(dialect: Dialect, key: str) -> tuple[Any, CallError] | None:
    """The first of WRONG that the parse path refuses with an error about `key`."""
    for value in WRONG:
        _, err = parse_noting(dialect, {**full_path(dialect), key: value})
        if err is not None and at(err, key):
            return value, err
    return None


def bodies(dialect: Dialect) -> Iterator[dict[str, Any]]:
    """Bodies that take the parse path down each of its readers."""
    base = full_path(dialect)
    yield base
    yield {**base, "persona": {"name": "p", "input_schema": {"type": "object"}}}
    for key, schema in listed(dialect).items():
        for value in WRONG:
            yield {**base, key: value}
        if isinstance(schema, dict) and "default" in schema:
            yield {**base, key: schema["default"]}


@pytest.mark.parametrize("name", NAMES)
def test_each_key_read_is_listed(name: str) -> None:
    dialect = DIALECTS[name]
    _, err = parse_noting(dialect, full_path(dialect))
    assert err is None, f"{name}: its EXAMPLE is refused: {err}"
    read: set[str] = set()
    for body in bodies(dialect):
        keys_read, _ = parse_noting(dialect, body)
        read |= keys_read
    assert read - set(listed(dialect)) == set(), f"{name} reads keys its schema does not list"
    # The plain body skips the unknown-key check: each of its keys must be listed too.
    assert dialect.body.plain <= set(listed(dialect)), f"{name}'s plain keys are not all listed"


@pytest.mark.parametrize("name", NAMES)
def test_each_listed_key_is_read(name: str) -> None:
    dialect = DIALECTS[name]
    ignored = [key for key in listed(dialect) if wrong_value(dialect, key) is None]
    assert ignored == [], f"{name} lists keys whose wrong values nothing refuses"


@pytest.mark.parametrize("name", NAMES)
def test_a_key_it_does_not_list_is_an_unknown_parameter(name: str) -> None:
    """Every key another dialect lists, and one no dialect does, even beside the plain body."""
    dialect = DIALECTS[name]
    others = {key for d in DIALECTS.values() for key in listed(d)} - set(listed(dialect))
    for key in sorted(others | {"no_such_key"}):
        for body in (example(dialect), full_path(dialect)):
            _, err = parse_noting(dialect, {**body, key: 1})
            assert err is not None and err.path == key, (name, key, err)
            assert err.reason == f"unknown parameter {key!r}", (name, key, err)


@pytest.mark.anyio
async def test_over_the_wire_each_listed_key_is_read_and_an_unlisted_one_refused(era: str) -> None:
    """The same, through the SDK client: each listed key's wrong value is an error naming it and
    nothing is sent; an unlisted key is an unknown parameter; the next call works."""
    host = ScriptedHost("ok", "ok")
    async with connect(era, host) as client:
        for name in NAMES:
            dialect = DIALECTS[name]
            for key in listed(dialect):
                found = wrong_value(dialect, key)
                assert found is not None, (name, key)
                value, expected = found
                result = await client.call_tool(name, {**full_path(dialect), key: value})
                text = result.content[0].text  # type: ignore[union-attr]
                assert result.is_error and text.startswith(f"{name}: {expected.path}: "), (name, key, text)
                assert text.endswith("Nothing was sent to the host."), text
            unknown = await client.call_tool(name, {**example(dialect), "no_such_key": 1})
            text = unknown.content[0].text  # type: ignore[union-attr]
            assert unknown.is_error and text.startswith(f"{name}: no_such_key: unknown parameter"), text
        assert host.asked == 0
        for name in ("generate", test_extra_dialect.NAME):
            good = await client.call_tool(name, example(DIALECTS[name]))
            assert not good.is_error, good.content
    assert host.asked == 2


@pytest.mark.anyio
@pytest.mark.stdio
@pytest.mark.parametrize("mode", ERAS)
async def test_over_stdio_the_listing_is_the_registry_and_a_shared_key_is_read(mode: str) -> None:
    """The installed command lists each built-in tool exactly as the registry assembles it (the
    shared keys and the era sentence included), reads a shared key (`backend`) and refuses a key
    a tool does not list, sending nothing."""
    unregister(test_extra_dialect.NAME)  # the installed server knows only the built-in dialects
    host = ScriptedHost("ok")
    async with Client(server_params(), mode=mode, sampling_callback=host) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name, dialect in DIALECTS.items():
            assert tools[name].input_schema == dialect.INPUT_SCHEMA
            assert list(tools[name].input_schema["properties"]) == list(listed(dialect))
            assert tools[name].description == dialect.DESCRIPTION
            assert tools[name].description.endswith(extensions.ERA)
        bad = await client.call_tool("generate", {"prompt": "x", "backend": "nobody"})
        assert bad.is_error and bad.content[0].text.startswith("generate: backend: must be one of")  # type: ignore[union-attr]
        unknown = await client.call_tool("generate", {"prompt": "x", "output_schema": {"type": "object"}})
        text = unknown.content[0].text  # type: ignore[union-attr]
        assert unknown.is_error and text.startswith("generate: output_schema: unknown parameter"), text
        good = await client.call_tool("generate", {"prompt": "x", "backend": "host"})
    assert not good.is_error and host.asked == 1
