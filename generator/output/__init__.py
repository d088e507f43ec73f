"""Output: rendering the templates with the views, formatting with black, writing, reading and
comparing trees of files, importing the result once, and the README's table of revisions."""
