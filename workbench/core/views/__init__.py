"""Derived views: computed from the records, never writing a document (graph, search, meaning)."""
