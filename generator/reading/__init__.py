"""Reading: spec documents loaded, validated and parsed into the IR, with the revision index and
the data files beside it (field roles, statuses) and the runtime's own lists."""
