"""`Record`: `typing.NamedTuple`'s class syntax, made by `collections.namedtuple` alone.

Every immutable value that passes between the rooms is a named tuple (docs/architecture.md).
`typing.NamedTuple` defines one at nearly twice the cost of `collections.namedtuple`: it checks
every annotation (`typing._type_check`, which compiles a string annotation into a `ForwardRef`),
and it sets the made class's `__bases__` again. Start-up defines about thirty of them for the listing alone.
`Record` makes the same class the same way (`collections.namedtuple`, the class body's defaults,
methods and docstring copied on as `NamedTupleMeta` copies them) without either step, so the
annotations stay as written (strings, under `from __future__ import annotations`).
benchmarks/README.md has the figures.

For the type checker `Record` is `typing.NamedTuple` itself: mypy checks `class X(Record)` as a
NamedTuple, its fields, defaults and `_replace`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    from collections import namedtuple

    # What NamedTupleMeta refuses to let a class body replace, and what it does not copy on.
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    _NOT_COPIED = frozenset({"__module__", "__name__", "__annotations__"})

    class _RecordMeta(type):
        def __new__(mcls, name, bases, namespace):
            if not bases:  # `Record` itself
                return super().__new__(mcls, name, bases, namespace)
            if bases != (Record,):
                raise TypeError(f"{name}: a Record inherits from Record alone")
            annotations = namespace.get("__annotations__", {})
            defaults = []
            for field in annotations:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(f"{name}: field {field} without a default follows one with a default")
            made = namedtuple(name, annotations, defaults=defaults, module=namespace["__module__"])
            made.__annotations__ = annotations
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{name}: a Record cannot set {key}")
                if key not in _NOT_COPIED and key not in annotations:
                    setattr(made, key, value)
            return made

    class Record(metaclass=_RecordMeta):
        """Base of the project's named tuples; see the module's docstring."""
