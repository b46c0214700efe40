"""The command line, apart from the core: `agent-as-model` serves over stdio by default (cli.py),
and its subcommands are `demo`, `export-tools`, and `serve --record` / `replay` (transcripts/).
This is the top floor: it may import any room below it, and nothing in the core imports it.
"""
