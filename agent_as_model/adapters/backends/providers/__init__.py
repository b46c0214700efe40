"""The provider APIs: one module each (what it declares: `provider.ProviderModule`), registered by
its import path in `adapters/provider_names.py`; they do not import each other (an import-linter
contract over `providers.*`)."""
