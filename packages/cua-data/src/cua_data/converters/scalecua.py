"""Placeholder until the scalecua converter lands: registers nothing."""
