"""Property tests: hypothesis drives the call machine and the real server on both eras."""
