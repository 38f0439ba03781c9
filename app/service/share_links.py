"""Placeholder: filled in by the share_links work."""
