"""`agent_as_model.schemas`: which schemas are usable, the validator cache, and violations that
name a JSON pointer and a rule but never the instance's values."""

from __future__ import annotations

from typing import Any

import pytest

from agent_as_model.errors import CallError
from agent_as_model.schemas import check_object_schema, first_violation, json_pointer, validator_for

SECRET = "s3cr3t-Value-42"


def schema_error(value: object, path: str = "output_schema") -> CallError:
    with pytest.raises(CallError) as caught:
        check_object_schema(value, path)
    assert caught.value.kind == "caller" and not caught.value.sent
    return caught.value


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"$anchor": "here"}, "b": {"$ref": "#here"}}},
        {"type": "object", "properties": {"meta": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}},
        {  # a nested $id moves the base: its own "#/$defs/..." resolves against it
            "$id": "https://example.com/root",
            "type": "object",
            "properties": {
                "a": {"$id": "inner", "properties": {"x": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
                "b": {"$ref": "inner"},
            },
        },
        {"type": "object", "properties": {"e": {"format": "email"}}},
    ],
)
def test_usable_object_schemas_are_returned_as_given(schema: dict[str, Any]) -> None:
    assert check_object_schema(schema, "output_schema") is schema


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ([], "output_schema", "expected a JSON Schema object, got array"),
        ("{}", "output_schema", "expected a JSON Schema object, got string"),
        ({}, "output_schema", "it has no 'type'"),
        ({"type": "array"}, "output_schema", "it has type 'array'"),
        ({"type": ["object", "null"]}, "output_schema", 'it has type ["object", "null"]'),
        (
            {"type": "object", "properties": {"age": {"type": "integr"}}},
            "output_schema.properties.age.type",
            "'integr' is not valid under any of the given schemas",
        ),
        ({"type": "object", "required": "name"}, "output_schema.required", "'name' is not of type 'array'"),
        (
            {"type": "object", "properties": {"tags": {"items": [{"type": "string"}, 3]}}},
            "output_schema.properties.tags.items",
            "is not of type 'object', 'boolean'",
        ),
        (
            {"type": "object", "properties": {"a": {"pattern": "("}}},
            "output_schema.properties.a.pattern",
            "regex",
        ),
        (
            {"type": "object", "properties": {"my key": {"minLength": -1}}},
            "output_schema.properties['my key'].minLength",
            "-1 is less than the minimum of 0",
        ),
    ],
)
def test_unusable_schemas_name_the_keyword(value: object, path: str, reason: str) -> None:
    err = schema_error(value)
    assert err.path == path
    assert reason in err.reason


@pytest.mark.parametrize(
    "ref",
    ["#/$defs/missing", "#nowhere", "https://example.com/person.json", "file:///etc/passwd", "other.json"],
)
def test_refs_must_resolve_inside_the_schema_and_are_never_fetched(ref: str) -> None:
    err = schema_error({"type": "object", "properties": {"a": {"$ref": ref}}}, "tools[0].input_schema")
    assert err.path == "tools[0].input_schema"
    assert f"$ref {ref!r} does not resolve inside the schema" in err.reason


def test_a_dynamic_ref_must_resolve_too() -> None:
    err = schema_error({"type": "object", "properties": {"a": {"$dynamicRef": "#nope"}}})
    assert err.reason.startswith("$dynamicRef '#nope' does not resolve inside the schema")
    tree = {"type": "object", "$dynamicAnchor": "node", "properties": {"a": {"$dynamicRef": "#node"}}}
    assert check_object_schema(tree, "s") is tree
    assert first_violation(tree, {"a": {"a": 5}}) is not None


def test_a_ref_inside_a_data_keyword_is_data() -> None:
    schema = {"type": "object", "properties": {"a": {"const": {"$ref": "#/nowhere"}}}}
    assert check_object_schema(schema, "s") is schema


def test_a_schema_nested_too_deeply_is_a_caller_error_not_a_crash() -> None:
    schema: dict[str, Any] = {"type": "object"}
    inner = schema
    for _ in range(5000):
        inner["properties"] = {"a": {"type": "object"}}
        inner = inner["properties"]["a"]
    assert schema_error(schema).reason == "the schema is nested too deeply to check"


def test_the_validator_is_compiled_once_per_equal_schema() -> None:
    one = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    same = {"required": ["n"], "properties": {"n": {"type": "integer"}}, "type": "object"}
    assert validator_for(one) is validator_for(same)
    assert validator_for(one) is not validator_for({"type": "object"})


def test_a_cached_validator_does_not_follow_later_mutation_of_the_callers_dict() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string"}}, "title": "mutated"}
    before = validator_for(schema)
    schema["properties"]["x"]["type"] = "integer"
    assert before.is_valid({"x": "still a string"})


def test_first_violation_is_none_for_a_valid_instance_and_for_no_schema() -> None:
    assert first_violation({"type": "object", "required": ["a"]}, {"a": 1}) is None
    assert first_violation(None, {"anything": SECRET}) is None


PERSON: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 3, "maxLength": 20, "pattern": "^[A-Za-z0-9-]+$"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "role": {"enum": ["admin", "user"]},
        "kind": {"const": "person"},
        "score": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
        "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
        "one": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 100}]},
        "not_null": {"not": {"type": "string"}},
        "blocked": False,
        "nested": {"type": "object", "properties": {"a/b~c": {"type": "integer"}}},
        "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    },
    "required": ["name"],
    "additionalProperties": False,
    "$defs": {"item": {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}},
}


@pytest.mark.parametrize(
    ("instance", "pointer", "reason"),
    [
        ({}, "", "missing required property 'name' (schema /required)"),
        (
            {"name": "abc", SECRET: 1},
            "",
            "has a property the schema does not allow (schema /additionalProperties)",
        ),
        ({"name": 7}, "/name", "expected type string, got integer (schema /properties/name/type)"),
        ({"name": SECRET * 3}, "/name", "longer than maxLength 20"),
        ({"name": "s3"}, "/name", "shorter than minLength 3"),
        ({"name": "s3cr3t Value"}, "/name", "does not match the pattern '^[A-Za-z0-9-]+$'"),
        ({"name": "abc", "age": -4}, "/age", "must be >= 0"),
        ({"name": "abc", "age": 420}, "/age", "must be <= 150"),
        ({"name": "abc", "age": 4.5}, "/age", "expected type integer, got number"),
        ({"name": "abc", "role": SECRET}, "/role", "must be one of the enum values: 'admin', 'user'"),
        ({"name": "abc", "kind": SECRET}, "/kind", "must equal the schema's const value 'person'"),
        ({"name": "abc", "score": 0}, "/score", "must be > 0"),
        ({"name": "abc", "score": 0.7}, "/score", "must be a multiple of 0.5"),
        ({"name": "abc", "tags": [SECRET, "b", "c"]}, "/tags", "more items than maxItems 2"),
        ({"name": "abc", "tags": [SECRET, SECRET]}, "/tags", "items must be unique"),
        ({"name": "abc", "tags": ["ok", 5]}, "/tags/1", "expected type string, got integer"),
        ({"name": "abc", "pair": ["a", SECRET]}, "/pair", "has more items than the schema allows"),
        ({"name": "abc", "either": SECRET}, "/either", "matches none of the anyOf alternatives"),
        ({"name": "abc", "one": SECRET}, "/one", "must match exactly one oneOf alternative"),
        ({"name": "abc", "not_null": SECRET}, "/not_null", "matches the schema under 'not'"),
        (
            {"name": "abc", "blocked": SECRET},
            "/blocked",
            "the schema forbids this property (its schema is false)",
        ),
        (
            {"name": "abc", "nested": {"a/b~c": SECRET}},
            "/nested/a~1b~0c",
            "expected type integer, got string",
        ),
        (
            {"name": "abc", "items": [{"age": 1}, {"age": SECRET}]},
            "/items/1/age",
            "expected type integer, got string (schema /properties/items/items/properties/age/type)",
        ),
        ({"name": "abc", "items": [{}]}, "/items/0", "missing required property 'age'"),
    ],
)
def test_violations_name_a_pointer_and_a_rule_never_the_values(
    instance: dict[str, Any], pointer: str, reason: str
) -> None:
    found = first_violation(PERSON, instance)
    assert found is not None
    assert found[0] == pointer
    assert reason in found[1]
    assert SECRET not in found[1] and "s3cr3t" not in found[1].replace("s3cr3t Value", "")


@pytest.mark.parametrize(
    ("schema", "instance", "reason"),
    [
        ({"minProperties": 2}, {"a": SECRET}, "fewer properties than minProperties 2"),
        ({"maxProperties": 0}, {"a": SECRET}, "more properties than maxProperties 0"),
        ({"minItems": 2}, [SECRET], "fewer items than minItems 2"),
        ({"contains": {"type": "integer"}}, [SECRET], "too few or too many items match 'contains'"),
        (
            {"propertyNames": {"maxLength": 3}},
            {SECRET: 1},
            "longer than maxLength 3 (schema /propertyNames/maxLength)",
        ),
        ({"dependentRequired": {"a": ["b", "c"]}}, {"a": SECRET, "c": 1}, "property 'a' requires 'b'"),
        ({"dependentSchemas": {"a": {"required": ["b"]}}}, {"a": SECRET}, "missing required property 'b'"),
        ({"unevaluatedProperties": False}, {SECRET: SECRET}, "has a property the schema does not allow"),
        (
            {"properties": {"a": {}, "b": {}}, "additionalProperties": False},
            {"a": 1, SECRET: SECRET},
            "has a property the schema does not allow (allowed: 'a', 'b')",
        ),
        ({"required": ["a", "b"]}, {}, "missing required properties 'a', 'b'"),
        ({"propertyNames": False}, {SECRET: 1}, "no value is allowed here (the schema is false)"),
        (
            {"properties": {"a": {"$ref": "#/$defs/no"}}, "$defs": {"no": False}},
            {"a": SECRET},
            "schema is false",
        ),
        ({"type": ["string", "null"]}, 5, "expected type string or null, got integer"),
    ],
)
def test_every_rule_has_words_of_its_own(schema: dict[str, Any], instance: object, reason: str) -> None:
    found = first_violation({"type": ["object", "array", "string", "null", "integer"], **schema}, instance)
    assert found is not None
    assert reason in found[1]
    assert SECRET not in found[1]


def test_best_match_is_deterministic() -> None:
    instance = {"name": 1, "age": "x", "role": "y"}
    assert len({first_violation(PERSON, dict(instance)) for _ in range(5)}) == 1


def test_an_answer_nested_too_deeply_is_a_violation_not_a_crash() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    instance: dict[str, Any] = {}
    inner = instance
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    assert first_violation(schema, instance) == ("", "nested too deeply to validate")


def test_json_pointer_escapes_per_rfc_6901() -> None:
    assert json_pointer([]) == ""
    assert json_pointer(["a/b", "m~n", 0, ""]) == "/a~1b/m~0n/0/"
