"""Epitopes: the target residues each design contacts, read from its structure."""
