"""Fault tests: real dependencies broken on purpose."""
