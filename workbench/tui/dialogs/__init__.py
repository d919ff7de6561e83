"""Modal screens that ask one question and return the answer through `dismiss`."""
