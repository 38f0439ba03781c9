"""Placeholder: filled in by the share_read work."""
