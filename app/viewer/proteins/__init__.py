"""Protein sequence analysis for the results index: liabilities and ProtParam properties."""
