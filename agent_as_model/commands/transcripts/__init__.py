"""Record what a host and the server said on stdio, and replay it against a fresh server to debug.

`serve --record FILE` taps the stdio wire (`transports/tap.py`) and records one JSON line per
frame (recorder.py, fileformat.py), optionally redacting message text (redact.py). `replay FILE`
plays the client side of a recording to a fresh server (targets.py, replay.py), answers the
server's host requests from the recording, and compares every server frame after normalising
what legitimately varies (normalise.py), printing a readable diff per differing frame (diff.py).
command.py wires both onto the command line. The format and a debugging walk-through are in
docs/transcripts.md.
"""

# How long replay waits for each server frame. Here, not in replay.py, so the command line can
# show it without importing the replay machinery on every server start.
DEFAULT_TIMEOUT = 10.0
