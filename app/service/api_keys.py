"""Placeholder: filled in by the api_keys work."""
