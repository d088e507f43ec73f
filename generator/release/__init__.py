"""Release: the records of what was released (and what that freezes), recording a release (and
holding a runtime version to the surface of the release before it), building reproducible
artifacts and publishing them to a package index."""
