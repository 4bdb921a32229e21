"""Placeholder until the aguvis converter lands: registers nothing."""
