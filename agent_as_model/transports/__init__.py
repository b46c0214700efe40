"""The wire: how the server's frames reach a host and come back.

`stdio.py` is the server's own stdin reader and stdout writer (every line answered, frames
bounded); `tap.py` sees every byte of that wire for `serve --record`; `http/` is the streamable
HTTP app on uvicorn with its guards and holds; `frame_checks.py` judges a JSON-RPC frame the SDK
would refuse or misread, for both. The command line (`commands/`) parses flags and starts one of
them; below this floor nothing knows which transport carries a call.
"""
