"""The products: one module each, or one package once a product outgrows a file (its modules one
concern each, its `__init__.py` building the `Dialect`), declaring its `Dialect` (how its request
reads, how its result is rendered, how a caller writes it). Registered in `dialects/__init__.py`'s
`_BUILT_IN`; they do not import each other (an import-linter contract over `products.*`, which
takes a package as one unit: its own modules import each other)."""
