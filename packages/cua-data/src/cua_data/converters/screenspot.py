"""Placeholder until the screenspot converter lands: registers nothing."""
