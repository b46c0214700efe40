"""`Record` makes the class `typing.NamedTuple` makes from the same body (agent_as_model/records.py):
the same fields, defaults, methods, docstring, tuple behaviour and pickling, and the same refusals."""

from __future__ import annotations

import pickle
from typing import NamedTuple

import pytest

from agent_as_model.records import Record


class Point(Record):
    """A point on the plane."""

    x: int
    y: int = 0
    label: str = "origin"

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


class TypedPoint(NamedTuple):
    """A point on the plane."""

    x: int
    y: int = 0
    label: str = "origin"


class Bare(Record):
    a: str


def test_the_class_is_the_named_tuple_typing_makes() -> None:
    assert Point._fields == TypedPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypedPoint._field_defaults == {"y": 0, "label": "origin"}
    assert Point.__doc__ == TypedPoint.__doc__
    assert Point.__mro__ == (Point, tuple, object)
    assert Point.__module__ == __name__ and Point.__qualname__ == "Point"
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str"}
    assert Bare.__doc__ == "Bare(a,)"  # namedtuple's own docstring when the body has none


def test_made_values_behave_as_the_typing_ones() -> None:
    made, typed = Point(3, label="p"), TypedPoint(3, label="p")
    assert made == typed == (3, 0, "p")
    assert isinstance(made, tuple) and made[0] == 3 and made.y == 0
    assert repr(made) == "Point(x=3, y=0, label='p')"
    assert made._asdict() == typed._asdict()
    assert Point._make([1, 2, "q"]) == (1, 2, "q")
    assert made.moved(2) == Point(5, 0, "p") and made.norm == 3
    assert pickle.loads(pickle.dumps(made)) == made and type(pickle.loads(pickle.dumps(made))) is Point
    with pytest.raises(AttributeError):
        made.x = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_what_typing_refuses_a_record_refuses() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Late(Record):  # type: ignore[misc]
            a: int = 0
            b: int

    with pytest.raises(AttributeError, match="_replace"):

        class Clash(Record):  # type: ignore[misc]
            a: int

            def _replace(self) -> None:  # type: ignore[override]
                pass

    with pytest.raises(TypeError, match="Record alone"):

        class Mixed(Record, dict):  # type: ignore[misc]
            a: int
