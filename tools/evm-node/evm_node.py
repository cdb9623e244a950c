#!/usr/bin/env python3
"""A small Ethereum JSON-RPC endpoint over eth-tester + py-evm, for kcs's tests.

Usage: evm_node.py [--port N]   (0, the default, picks a free port)

Prints one line `listening http://127.0.0.1:PORT` once it accepts requests, then serves
until killed. Every transaction is mined in its own block as soon as it arrives
(eth-tester's auto-mining). Ten accounts are funded at genesis and unlocked, so the
tests fund kcs-derived addresses with eth_sendTransaction from eth_accounts[0].

Besides JSON-RPC 2.0 on POST / (single requests and batches), it serves:
  GET  /api?module=account&action=txlist&address=A   an Etherscan-style transaction list
  GET  /limited/api?…&every=N                         the same, except that every Nth request (the
                                                       1st, the N+1st, …; N=10 by default) gets
                                                       Etherscan's rate-limit answer, noted as
                                                       "txlist:limited" (answered ones as "txlist")
  POST /status/CODE                                    answers with that HTTP status (error tests)
  POST /hang                                           answers only after 30 s (time-out tests)
  POST /garbage                                        answers 200 with an HTML page, not JSON
  POST /unmined                                        JSON-RPC as on /, except that no receipt is ever
                                                       found (a transaction that stays pending)
  GET  /requests                                       the JSON-RPC methods received so far
                                                       (those sent to /hang as "hang:METHOD", to
                                                       /garbage as "garbage"; explorer requests as above)
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from eth_tester import EthereumTester, PyEVMBackend
from eth_tester.exceptions import TransactionNotFound, BlockNotFound

PRIORITY_FEE = 10**9  # the tip eth_maxPriorityFeePerGas suggests: 1 gwei


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def to_rpc(value):
    """eth-tester's Python values as JSON-RPC: ints as hex quantities, bytes as hex data."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return hex(value)
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict):
        return {camel(k): to_rpc(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_rpc(v) for v in value]
    return value


def quantity(text, name):
    if isinstance(text, int):
        return text
    if not isinstance(text, str) or not text.startswith("0x"):
        raise RPCError(-32602, f"{name}: expected a hex quantity, got {text!r}")
    return int(text, 16)


def block_id(tag):
    if tag in (None, "latest", "pending", "earliest", "safe", "finalized"):
        return "latest" if tag in (None, "safe", "finalized") else tag
    return quantity(tag, "block")


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Node:
    def __init__(self):
        self.tester = EthereumTester(backend=PyEVMBackend())
        self.lock = threading.Lock()
        self.by_address = {}  # lower-case address -> [tx hash] in mining order
        self.methods = []
        self.explorer_lock = threading.Lock()
        self.explorer_requests = 0

    def explorer_limited(self, every):
        """Counts a /limited/api request; true for the 1st, the every+1st, … of them."""
        with self.explorer_lock:
            self.explorer_requests += 1
            return (self.explorer_requests - 1) % max(1, every) == 0

    def remember(self, tx_hash):
        tx = self.tester.get_transaction_by_hash(tx_hash)
        for who in (tx["from"], tx.get("to")):
            if who:
                self.by_address.setdefault(who.lower(), []).append(tx_hash)

    def tx_request(self, params):
        """A JSON-RPC transaction object as eth-tester's snake_case dict."""
        out = {}
        for key, value in params.items():
            name = {"input": "data", "gasLimit": "gas"}.get(key, key)
            snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
            if name in ("from", "to", "data"):
                out[snake] = value
            elif name == "accessList":
                out["access_list"] = [
                    {"address": e["address"], "storage_keys": e.get("storageKeys", [])} for e in value
                ]
            elif name == "authorizationList":
                out["authorization_list"] = [
                    {
                        "chain_id": quantity(e["chainId"], "chainId"),
                        "address": e["address"],
                        "nonce": quantity(e["nonce"], "nonce"),
                        "y_parity": quantity(e["yParity"], "yParity"),
                        "r": quantity(e["r"], "r"),
                        "s": quantity(e["s"], "s"),
                    }
                    for e in value
                ]
            elif name == "type":
                continue
            else:
                out[snake] = quantity(value, key)
        return out

    def call(self, method, params):
        t = self.tester
        self.methods.append(method)
        if method == "eth_chainId":
            return hex(t.backend.chain.chain_id)
        if method == "net_version":
            return str(t.backend.chain.chain_id)
        if method == "eth_blockNumber":
            return hex(t.get_block_by_number("latest")["number"])
        if method == "eth_accounts":
            return list(t.get_accounts())
        if method == "eth_getBalance":
            return hex(t.get_balance(params[0], block_id(params[1] if len(params) > 1 else None)))
        if method == "eth_getTransactionCount":
            return hex(t.get_nonce(params[0], block_id(params[1] if len(params) > 1 else None)))
        if method == "eth_getCode":
            return t.get_code(params[0], block_id(params[1] if len(params) > 1 else None))
        if method == "eth_call":
            # A node takes a call without `from`; eth-tester wants one that can pay for its gas.
            request = {"from": t.get_accounts()[0], **self.tx_request(params[0])}
            return t.call(request, block_id(params[1] if len(params) > 1 else None))
        if method == "eth_getStorageAt":
            return t.get_storage_at(params[0], params[1], block_id(params[2] if len(params) > 2 else None))
        if method == "eth_gasPrice":
            return hex(t.get_block_by_number("pending")["base_fee_per_gas"] + PRIORITY_FEE)
        if method == "eth_maxPriorityFeePerGas":
            return hex(PRIORITY_FEE)
        if method == "eth_getBlockByNumber":
            try:
                block = t.get_block_by_number(block_id(params[0]), bool(params[1]) if len(params) > 1 else False)
            except BlockNotFound:
                return None
            return to_rpc(block)
        if method == "eth_feeHistory":
            count = quantity(params[0], "blockCount")
            history = t.get_fee_history(count, block_id(params[1]), params[2] if len(params) > 2 else None)
            return to_rpc(history)
        if method == "eth_estimateGas":
            return hex(t.estimate_gas(self.tx_request(params[0])))
        if method == "eth_sendTransaction":
            tx_hash = t.send_transaction(self.tx_request(params[0]))
            self.remember(tx_hash)
            return tx_hash
        if method == "eth_sendRawTransaction":
            tx_hash = t.send_raw_transaction(params[0])
            self.remember(tx_hash)
            return tx_hash
        if method == "eth_getTransactionReceipt":
            try:
                return to_rpc(t.get_transaction_receipt(params[0]))
            except TransactionNotFound:
                return None
        if method == "eth_getTransactionByHash":
            try:
                return to_rpc(t.get_transaction_by_hash(params[0]))
            except TransactionNotFound:
                return None
        raise RPCError(-32601, f"the method {method} does not exist/is not available")

    def handle(self, request):
        rid = request.get("id") if isinstance(request, dict) else None
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or "method" not in request:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "invalid request"}}
        try:
            with self.lock:
                result = self.call(request["method"], request.get("params") or [])
            return {"jsonrpc": "2.0", "id": rid, "result": result}
        except RPCError as e:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message}}
        except Exception as e:  # what the EVM refused: bad signature, nonce, funds
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": f"{type(e).__name__}: {e}"}}

    def txlist(self, address):
        rows = []
        with self.lock:
            for tx_hash in self.by_address.get(address.lower(), []):
                tx = self.tester.get_transaction_by_hash(tx_hash)
                rows.append({"hash": tx_hash, "blockNumber": str(tx["block_number"]), "from": tx["from"].lower(),
                             "to": (tx.get("to") or "").lower(), "value": str(tx["value"]), "nonce": str(tx["nonce"])})
        if rows:
            return {"status": "1", "message": "OK", "result": rows}
        return {"status": "0", "message": "No transactions found", "result": []}


def serve(port):
    node = Node()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urlparse(self.path)
            if url.path == "/requests":
                return self.reply(200, node.methods)
            query = parse_qs(url.query)
            if url.path in ("/api", "/limited/api") and query.get("module") == ["account"] \
                    and query.get("action") == ["txlist"]:
                if url.path == "/limited/api" and node.explorer_limited(int(query.get("every", ["10"])[0])):
                    node.methods.append("txlist:limited")
                    return self.reply(200, {"status": "0", "message": "NOTOK",
                                            "result": "Max rate limit reached, please use API Key for higher rate limit"})
                node.methods.append("txlist")
                return self.reply(200, node.txlist(query.get("address", [""])[0]))
            self.reply(404, {"error": "not found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            path = urlparse(self.path).path
            if path.startswith("/status/"):
                return self.reply(int(path.split("/")[2]), {"error": "as asked"})
            if path == "/garbage":
                node.methods.append("garbage")
                page = b"<html><body>502 Bad Gateway</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                return self.wfile.write(page)
            if path == "/hang":
                try:
                    node.methods.append("hang:" + json.loads(raw).get("method", "?"))
                except (ValueError, AttributeError):
                    node.methods.append("hang:?")
                time.sleep(30)
                return self.reply(200, {})
            try:
                request = json.loads(raw)
            except ValueError:
                return self.reply(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            handle = node.handle
            if path == "/unmined":
                def handle(r):
                    if isinstance(r, dict) and r.get("method") == "eth_getTransactionReceipt":
                        return {"jsonrpc": "2.0", "id": r.get("id"), "result": None}
                    return node.handle(r)
            if isinstance(request, list):
                return self.reply(200, [handle(r) for r in request])
            self.reply(200, handle(request))

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    serve(parser.parse_args().port)
