"""A PC/SC reader and a connection to its card, over libpcsclite (pcsclite's types: DWORD is
unsigned long, SCARDCONTEXT and SCARDHANDLE are long)."""
import ctypes
import ctypes.util

_lib = ctypes.CDLL(ctypes.util.find_library("pcsclite") or "libpcsclite.so.1")
_ULONG = ctypes.c_ulong
_LONG = ctypes.c_long

SCARD_SCOPE_SYSTEM = 2
SCARD_SHARE_SHARED = 2
SCARD_PROTOCOL_T0_OR_T1 = 3
SCARD_LEAVE_CARD = 0


class _IORequest(ctypes.Structure):
    _fields_ = [("dwProtocol", _ULONG), ("cbPciLength", _ULONG)]


class PCSCError(Exception):
    def __init__(self, call, code):
        super().__init__(f"{call} failed: 0x{code & 0xFFFFFFFF:08X}")


def _check(call, rv):
    if rv != 0:
        raise PCSCError(call, rv)


class _Context:
    def __init__(self):
        self.handle = _LONG()
        _check("SCardEstablishContext",
               _lib.SCardEstablishContext(_ULONG(SCARD_SCOPE_SYSTEM), None, None, ctypes.byref(self.handle)))

    def reader_names(self):
        size = _ULONG(0)
        rv = _lib.SCardListReaders(self.handle, None, None, ctypes.byref(size))
        if rv == 0x8010002E:  # SCARD_E_NO_READERS_AVAILABLE
            return []
        _check("SCardListReaders", rv)
        buffer = ctypes.create_string_buffer(size.value)
        _check("SCardListReaders", _lib.SCardListReaders(self.handle, None, buffer, ctypes.byref(size)))
        return [n.decode() for n in buffer.raw[:size.value].split(b"\0") if n]

    def __del__(self):
        _lib.SCardReleaseContext(self.handle)


class PCSCConnection:
    def __init__(self, reader):
        self.reader = reader
        self.card = None
        self.protocol = _ULONG(0)

    def connect(self):
        self.card = _LONG()
        _check("SCardConnect", _lib.SCardConnect(
            self.reader.context.handle, self.reader.name.encode(), _ULONG(SCARD_SHARE_SHARED),
            _ULONG(SCARD_PROTOCOL_T0_OR_T1), ctypes.byref(self.card), ctypes.byref(self.protocol)))

    def transmit(self, apdu):
        send = (ctypes.c_ubyte * len(apdu))(*apdu)
        receive = (ctypes.c_ubyte * 65538)()
        length = _ULONG(len(receive))
        request = _IORequest(self.protocol.value, ctypes.sizeof(_IORequest))
        _check("SCardTransmit", _lib.SCardTransmit(
            self.card, ctypes.byref(request), send, _ULONG(len(apdu)), None, receive, ctypes.byref(length)))
        data = list(receive[:length.value])
        return data[:-2], data[-2], data[-1]

    def disconnect(self):
        if self.card is not None:
            _lib.SCardDisconnect(self.card, _ULONG(SCARD_LEAVE_CARD))
            self.card = None


class PCSCReader:
    def __init__(self, context, name):
        self.context = context
        self.name = name

    def createConnection(self):
        return PCSCConnection(self)

    def __str__(self):
        return self.name
