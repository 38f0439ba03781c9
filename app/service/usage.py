"""Placeholder: filled in by the usage work."""
