"""This server with the test dialect of tests/test_extra_dialect.py registered, over real stdio:
`python -m tests.extra_dialect_server`. The one line of registration is all it adds."""

from __future__ import annotations

import sys

from agent_as_model.adapters.dialects import register
from agent_as_model.commands.cli import main
from tests.test_extra_dialect import NOTES

if __name__ == "__main__":
    register(NOTES)
    sys.exit(main([]))
