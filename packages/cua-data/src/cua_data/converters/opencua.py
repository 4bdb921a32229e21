"""Placeholder until the opencua converter lands: registers nothing."""
