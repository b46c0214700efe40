"""agent-as-model: an MCP server where the connected agent is the model and the API key."""

# The one place the version is written: pyproject.toml reads it from here (hatch's version
# source), so the installed metadata always agrees. A literal rather than
# `importlib.metadata.version(...)`: reading the installed metadata imported the email stack and
# scanned sys.path, about 45-60 ms of `agent-as-model --version` and 170M instructions.
__version__ = "0.1.0"

__all__ = ["__version__"]
