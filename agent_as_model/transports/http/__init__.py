"""`serve --http`: the same server over streamable HTTP, on uvicorn, for many hosts."""
