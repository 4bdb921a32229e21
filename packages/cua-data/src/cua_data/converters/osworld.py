"""Placeholder until the osworld converter lands: registers nothing."""
