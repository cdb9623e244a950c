"""The tally the test scripts (selftest.py, channeltest.py) keep: one check, one line."""
import time

from ecdsa import SECP256k1, VerifyingKey
from ecdsa.util import sigdecode_string

from .groups import load_point


def verify(q_hex, m, r, s, recid):
    """python-ecdsa's verdict on (r, s, recid) over digest m under the compressed key q_hex: it
    verifies, recovers that key with recid, and s is low."""
    Qp, sig = load_point(bytes.fromhex(q_hex)), bytes.fromhex(r) + bytes.fromhex(s)
    try:
        ok = VerifyingKey.from_public_point(Qp, curve=SECP256k1).verify_digest(sig, m, sigdecode=sigdecode_string)
        keys = VerifyingKey.from_public_key_recovery_with_digest(sig, m, SECP256k1, sigdecode=sigdecode_string)
        return ok and keys[recid].pubkey.point == Qp and int(s, 16) <= SECP256k1.order // 2
    except Exception as exc:
        print("verify:", exc)
        return False


class Checks:
    def __init__(self, name, verbose):
        self.name, self.verbose, self.failures, self.passes, self.t0 = name, verbose, [], 0, time.time()

    def __call__(self, cond, what):
        if cond:
            self.passes += 1
        else:
            self.failures.append(what)
        if self.verbose:
            print(("ok   " if cond else "FAIL ") + what, flush=True)
        elif not cond:
            print("FAIL:", what, flush=True)

    def summary(self):
        """Prints the tally; the exit status."""
        print(f"\n{self.name}: {self.passes} passed, {len(self.failures)} failed in {time.time() - self.t0:.1f} s")
        for f in self.failures:
            print("  FAIL:", f)
        return 1 if self.failures else 0
