"""The exit statuses of `agent-as-model fuzz` (docs/fuzzing.md). A module of their own: the
command's module (`__init__.py`, which loads without hypothesis) says one of them when the extra
is missing, and the run (`runner.py`) says the others, and neither imports the other for them."""

PASSED, FAILED, UNREACHABLE = 0, 1, 2
