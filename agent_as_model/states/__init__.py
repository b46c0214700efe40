"""The work of each state: pure functions of the call record, no I/O, no era."""
