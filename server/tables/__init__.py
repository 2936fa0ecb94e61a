"""The tables: the lobby, a table and its parts (seats, turns, presence, states, history, the
fair deal), and the interfaces a table is written against."""
