"""Placeholder until the gui360 converter lands: registers nothing."""
