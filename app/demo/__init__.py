"""The demo link for newcomers and evaluation: seeding it (``seed``), keeping it complete
with live links (``upkeep``) and their commands (``commands``). Development only: the
production packages never import it (``tests/test_architecture.py``).
"""
