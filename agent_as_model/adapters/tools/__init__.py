"""Tool definitions across dialects, and the names the host's model can take.

- `definitions`: `ToolShape`, how a dialect declares its product's tool shapes, and the generic
  readers that turn `tools` / `tool_choice` into neutral `ToolSpec` / `ToolChoice` through it.
- `listing`: the shared JSON Schema fragments a dialect builds its listed fragments from.
- `names`: the reversible, deterministic mapping between the caller's tool names and the names
  the host's model is given.
- `describe`: tool descriptions shortened to a bound the host's model takes.
- `export`: the other direction: an MCP server's tools in a `ToolShape`'s product shape
  (`agent-as-model export-tools`).

Nothing here names a product: each dialect module declares its own.
"""
