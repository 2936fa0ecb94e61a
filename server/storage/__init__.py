"""Storage: the SQLite store and the standings kept in it."""
