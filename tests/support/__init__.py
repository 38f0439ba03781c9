"""Helpers the tests share: databases, apps, servers, the demo, the SDK double.

Fixtures live in ``tests/conftest.py`` (and the conftest of a folder); everything they and
the tests call lives here, imported, never from a conftest.
"""
