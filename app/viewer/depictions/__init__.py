"""2D depictions of molecules: signed SVG URLs, the route that draws them, page markup."""
