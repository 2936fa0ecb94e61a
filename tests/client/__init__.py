"""Tests of the terminal client: model, screens (engine-fed), snapshots, end to end."""
