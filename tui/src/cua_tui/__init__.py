"""cua-tui: a Textual app that watches the cua bus and the pool controller."""

__version__ = "0.1.0"
