"""The test suite (tests/README.md): it mirrors app/."""
