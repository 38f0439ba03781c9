"""2D depictions of molecules: signed SVG URLs (``signing``), the route that draws them
(``views``) and the markup pages show them with (``markup``)."""
