"""Storage: bytes on disk, all or nothing: the change writer, its journal, replacing a file, the lock, reaching files without following a symlink, and the steps where a crash is tested."""
