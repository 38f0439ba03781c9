"""Placeholder: filled in by the artifacts work."""
