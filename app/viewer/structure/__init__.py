"""The 3D pages: a structure in Mol* with confidence, chains, interface and PAE, and two
results superposed.
"""
