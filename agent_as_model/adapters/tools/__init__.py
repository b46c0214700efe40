"""Tool definitions across dialects, and the names the host's model can take.

- `definitions`: a dialect's `tools` / `tool_choice` (its native shapes and the seed shape) into
  neutral `ToolSpec` / `ToolChoice`.
- `listing`: the JSON Schema fragments for `tools` / `tool_choice` that the listed tools show.
- `names`: the reversible, deterministic mapping between the caller's tool names and the names
  the host's model is given.
- `describe`: tool descriptions shortened to a bound the host's model takes.
- `export`: the other direction: an MCP server's tools as a product's tool definitions
  (`agent-as-model export-tools`).
"""
