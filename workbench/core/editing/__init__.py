"""Editing: the bytes of a document changed surgically: YAML edits, three-way text and document merges, and the edits merges share."""
