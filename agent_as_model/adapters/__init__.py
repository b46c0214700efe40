"""Adapters: the edges of the machine. `dialects` translate product API shapes to and from the
neutral conversation; `eras` are the only code that talks to the host. They never import each
other; they meet in `engine`."""
