"""agent-as-model: an MCP server where the connected agent is the model and the API key."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("agent-as-model")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
