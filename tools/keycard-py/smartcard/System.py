from .pcsc.PCSCReader import PCSCReader, _Context


def readers():
    """The readers pcscd knows, in its order (pyscard's `smartcard.System.readers`)."""
    context = _Context()
    return [PCSCReader(context, name) for name in context.reader_names()]
