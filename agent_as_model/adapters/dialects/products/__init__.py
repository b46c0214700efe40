"""The products: one module each, declaring its `Dialect` (how its request reads, how its result
is rendered, how a caller writes it). Registered in `dialects/__init__.py`'s `_BUILT_IN`; they do not
import each other (an import-linter contract over `products.*`)."""
