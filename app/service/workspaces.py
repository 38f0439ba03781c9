"""Placeholder: filled in by the workspaces work."""
