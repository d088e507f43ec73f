"""Views: the Python views of a revision's IR that the templates render (models, the client, the
local reference, reference pages), and the one rule for the names they make."""
