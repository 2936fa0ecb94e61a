"""The network side: client connections, the per-address limits, the LAN announcement."""
