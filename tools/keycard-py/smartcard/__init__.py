"""The part of pyscard's API that keycard-py uses, over libpcsclite with ctypes.

pyscard itself is built from source on Debian (it needs swig, a C compiler and the Python
headers); keycard-py only calls `smartcard.System.readers()`, a reader's
`createConnection()`, and a connection's `connect`, `transmit` and `disconnect`. This
package gives exactly those, so the client runs unchanged against the real pcscd.
"""
