"""Gemini's Schema (an OpenAPI 3.0 subset, types in upper case) as JSON Schema: a responseSchema
(structured output) and a function declaration's `parameters` are checked and sent as JSON Schema.
"""

from __future__ import annotations

from typing import Any

from agent_as_model.adapters.dialects import common
from agent_as_model.adapters.dialects.products.gemini.keys import SCHEMA_KEYS, SCHEMA_TYPES
from agent_as_model.adapters.dialects.products.gemini.objects import Object
from agent_as_model.errors import caller_error


def json_schema(raw: object, path: str) -> dict[str, Any]:
    """Gemini's Schema (an OpenAPI 3.0 subset, types in upper case) as JSON Schema."""
    schema = Object(raw, path, SCHEMA_KEYS, "a Schema key")
    out: dict[str, Any] = {}
    for name in schema:
        value, where = schema.get(name), schema.at(name)
        if name == "type":
            kind = common.require_string(value, where).upper()
            if kind not in SCHEMA_TYPES and kind != "TYPE_UNSPECIFIED":
                raise caller_error(where, f"expected one of {', '.join(SCHEMA_TYPES)}, got {value!r}")
            if kind != "TYPE_UNSPECIFIED":
                out["type"] = kind.lower()
        elif name in ("properties", "defs"):
            members = common.require_object(value, where)
            key = "properties" if name == "properties" else "$defs"
            out[key] = {k: json_schema(v, common.path_of(where, k)) for k, v in members.items()}
        elif name == "items":
            out["items"] = json_schema(value, where)
        elif name == "anyOf":
            out["anyOf"] = [
                json_schema(v, common.path_of(where, k))
                for k, v in enumerate(common.require_list(value, where))
            ]
        elif name == "additionalProperties":
            out[name] = value if isinstance(value, bool) else json_schema(value, where)
        elif name == "ref":
            out["$ref"] = common.require_string(value, where)
        elif name not in ("nullable", "propertyOrdering", "example"):  # the rest mean the same
            out[name] = value
    if schema.get("nullable") is True and "type" in out:
        out["type"] = [out["type"], "null"]
    return out
