"""The corpus: request bodies written by the official SDKs (`openai`, `anthropic`,
`google-genai`), each with the outcome it must have: served faithfully, served with its
unenforced parameters named in `_meta["agent-as-model/result"].warnings` (a hint), or refused
with the true reason (docs/parameters.md, generated from the same declarations, says what becomes
of every parameter).

`sdk.py` writes the bodies: each SDK's own client, pointed at an in-memory transport that keeps
the JSON it posts, so a body is what the SDK sends, byte for byte. `entries.py` holds the entries,
`run.py` runs them through the real server (in-process on both eras, or any installed command over
stdio, `python -m tests.corpus.run --command PATH` for the counts of another build) and checks
every result with the SDKs' own types, and `parameters.py` makes docs/parameters.md.
"""
