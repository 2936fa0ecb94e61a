"""The bot and coach workers: strategies run in worker processes, off the event loop."""
