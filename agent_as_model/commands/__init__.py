"""The command line, apart from the core: it parses flags and starts a transport (`transports/`).
`agent-as-model` serves over stdio by default (cli.py), and its subcommands are `demo`,
`export-tools`, `serve --record` / `replay` (transcripts/) and `fuzz` (fuzz/).
This is the top floor: it may import any room below it, and nothing in the core imports it.
"""

# The variable that names `serve --config`'s file: read by the bare command too (a host's
# configuration may give a variable where it gives no flag), so here, apart from the file's reader.
CONFIG_ENV = "AGENT_AS_MODEL_CONFIG"
