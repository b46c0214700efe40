"""The wire: how the server's frames reach a host and come back.

`stdio.py` is the server's own stdin reader and stdout writer (every line answered, frames
bounded); `tap.py` sees every byte of that wire for `serve --record`; `http/` is the streamable
HTTP app on uvicorn with its guards and holds; `frame_checks.py` judges a JSON-RPC frame the SDK
would refuse or misread, for both. The command line (`commands/`) parses flags and starts one of
them; below this floor nothing knows which transport carries a call.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def freeze_heap() -> None:
    """Move everything start-up made (the SDK, pydantic's models, the dialects) out of the
    collector's reach: it lives as long as the process, and without this every full collection
    walks it all again (the SDK leaves reference cycles on each 2026-07-28 request, so full
    collections keep coming). Both transports call it once the server is built. No
    `gc.collect()` first: start-up leaves little garbage, and a collection here would cost
    start-up about as much as the one it saves.

    Then the youngest generation is collected every YOUNG_THRESHOLD allocations, not Python's 700:
    reading a large request makes a great many objects on the event loop, and at 700 they set off
    full collections that walked them all, several to a request; at YOUNG_THRESHOLD one or none
    (benchmarks/README.md has the figures). The garbage cycles of a request wait that much
    longer to be collected."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
