"""Changes: what differs between revisions (the diff and its changelog), the package versions it
implies, and what a client of one revision meets on a server of another."""
