"""Independent Python reference party for kcs-2pecdsa/1 (docs/two-party-protocol.md)."""
