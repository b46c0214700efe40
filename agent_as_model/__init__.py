"""agent-as-model: an MCP server where the connected agent is the model and the API key."""

# The one place the version is written: pyproject.toml reads it from here (hatch's version
# source), so the installed metadata always agrees. A literal rather than
# `importlib.metadata.version(...)`: reading the installed metadata imported the email stack and
# scanned sys.path (its cost: benchmarks/README.md, "Figures the code cites").
__version__ = "0.1.0"

__all__ = ["__version__"]
