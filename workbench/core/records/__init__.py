"""Records: what the index is built from: each file's parsed record and its checks, the walk, the derived store, loading, the watcher, id ownership, the vault's settings, an edit's bytes."""
