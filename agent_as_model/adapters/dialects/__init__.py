"""Dialects: one module (or package) per product API shape, each declaring a `Dialect` (dialect.py).

The registry below is the one list of products. To add one: write its module in `products/`, or
a package once it outgrows a file (its name, its own description and input schema, body shape,
conversation reader, renderer, tool shapes, and how a caller writes its requests and reads its
results (`writing`), in one `Dialect`) and add it to `_BUILT_IN`; the import contract covers
every module and package there by itself. The registry holds each as listed: `extensions.listed`
adds the keys and the sentence every tool shares. Nothing else in the package names a product.
"""

from __future__ import annotations

from agent_as_model.adapters.dialects.dialect import Body, Dialect, Redaction
from agent_as_model.adapters.dialects.extensions import listed
from agent_as_model.adapters.dialects.products import chat, gemini, messages, prompt, responses
from agent_as_model.adapters.tools.definitions import ToolShape

_BUILT_IN = (chat.DIALECT, messages.DIALECT, responses.DIALECT, gemini.DIALECT, prompt.DIALECT)

# Tool name -> dialect as listed (its own keys and the shared ones: extensions.py), in listing
# order. Changed only through `register`/`unregister`.
DIALECTS: dict[str, Dialect] = {d.NAME: listed(d) for d in _BUILT_IN}


def register(dialect: Dialect) -> None:
    """Add a dialect (a test's, or a plug-in's) to the listing and to every room that asks."""
    if dialect.NAME in DIALECTS:
        raise ValueError(f"a dialect named {dialect.NAME!r} is registered already")
    DIALECTS[dialect.NAME] = listed(dialect)


def unregister(name: str) -> None:
    DIALECTS.pop(name, None)


def tool_shapes() -> dict[str, ToolShape]:
    """The product tool shapes by their `export-tools --format` name, in listing order."""
    return {d.tools.format: d.tools for d in DIALECTS.values() if d.tools is not None}


__all__ = ["DIALECTS", "Body", "Dialect", "Redaction", "ToolShape", "register", "tool_shapes", "unregister"]
