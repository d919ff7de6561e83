"""The Textual face of the workbench. It drives the core; it holds no curation logic of its own."""
