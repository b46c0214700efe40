"""Shared parameter readers, on values an SDK client cannot send but a raw JSON line can
(Python's json reads NaN and Infinity; the SDK client would serialise them as null)."""

from __future__ import annotations

import pytest

from agent_as_model.adapters.dialects import common
from agent_as_model.errors import CallError


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_temperature_is_named(value: float) -> None:
    with pytest.raises(CallError) as caught:
        common.read_temperature({"temperature": value})
    assert caught.value.path == "temperature"
    assert caught.value.reason.startswith("must be a finite number")
    assert caught.value.message("generate").endswith("Nothing was sent to the host.")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (float("inf"), "expected a positive integer, got inf"),
        (float("nan"), "expected a positive integer, got nan"),
        (1e300, "must be between 1 and 2147483647, got 1e+300"),
        (True, "expected a positive integer, got boolean"),
    ],
)
def test_max_tokens_out_of_range_is_named(value: object, reason: str) -> None:
    with pytest.raises(CallError) as caught:
        common.read_max_tokens({"max_tokens": value})
    assert (caught.value.path, caught.value.reason) == ("max_tokens", reason)


def test_integral_float_max_tokens_is_accepted() -> None:
    assert common.read_max_tokens({"max_tokens": 64.0}) == 64
    assert common.read_max_tokens({}) == common.DEFAULT_MAX_TOKENS
