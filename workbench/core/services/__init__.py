"""Services: each curation operation plans a change from the index and returns a `Plan`."""
