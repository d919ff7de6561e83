"""Full screens: the main screen routes messages between the panes and runs the vault's work."""
