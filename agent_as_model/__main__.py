"""`python -m agent_as_model` is the same as the `agent-as-model` command."""

from agent_as_model.commands.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
