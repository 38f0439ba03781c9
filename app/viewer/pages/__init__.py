"""The link's plain pages: the overview, one result, one prediction, artifact downloads."""
