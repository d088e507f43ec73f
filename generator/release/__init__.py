"""Release: the records of what was released (and what that freezes), recording a release,
building reproducible artifacts and publishing them to a package index."""
