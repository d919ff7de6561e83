"""The panes of the main screen, one role each. They are given what to show and post what the person asks for."""
