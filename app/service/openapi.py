"""Placeholder: filled in by the openapi work."""
