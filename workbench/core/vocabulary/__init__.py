"""Vocabulary: the words every layer speaks: types, statuses, documents, problems, errors, reading frontmatter, lifecycles, supersession, reading a file, the drawing port."""
