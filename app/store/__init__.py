"""All SQL of the application: one module per resource, functions over a Connection."""
