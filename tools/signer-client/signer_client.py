"""The clients of `kcs signer serve` in its tests (docs/signer.md): web3.py 8.0.0's own
HTTPProvider and IPCProvider, eth-account to recover what kcs signed, and raw HTTP for the
replays of Foundry's, ethers' and geth's calls and for the gate's refusals. Runs in the EVM
node's virtual environment (tools/evm-node: web3 and eth-account are pinned there).

    signer_client.py scenario URL TOKEN NODE      web3.py's §6.3 scenario; prints one JSON object
    signer_client.py post URL BODY [HEADERS-JSON] one raw POST; prints {"status", "headers", "body"}
    signer_client.py ipc SOCKET                   eth_accounts and a personal_sign over the socket

Everything it prints is facts (addresses, hashes, signatures, statuses): the Swift tests hold
them to the published vectors.
"""
import json
import sys
import urllib.request

from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from web3 import HTTPProvider, IPCProvider, Web3

BEEF = "0x000000000000000000000000000000000000bEEF"
CHAIN = 131277322940537

ETHER_MAIL = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
            {"name": "verifyingContract", "type": "address"},
        ],
        "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        "Mail": [
            {"name": "from", "type": "Person"},
            {"name": "to", "type": "Person"},
            {"name": "contents", "type": "string"},
        ],
    },
    "primaryType": "Mail",
    "domain": {
        "name": "Ether Mail",
        "version": "1",
        "chainId": CHAIN,
        "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
    },
    "message": {
        "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
        "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
        "contents": "Hello, Bob!",
    },
}


def node_requests(node):
    with urllib.request.urlopen(node + "/requests", timeout=30) as r:
        return json.loads(r.read())


def scenario(url, token, node, value=10**15, fund=True):
    out = {}
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
    w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 120, "headers": headers}))
    out["accounts"] = w3.eth.accounts
    address = out["accounts"][0]
    out["chainId"] = w3.eth.chain_id
    if fund:
        # Funds kcs's account straight on the node, from the node's own unlocked account.
        direct = Web3(HTTPProvider(node))
        funding = direct.eth.send_transaction(
            {"from": direct.eth.accounts[0], "to": address, "value": 10**18})
        direct.eth.wait_for_transaction_receipt(funding, timeout=120)
    before = len(node_requests(node))
    sent = w3.eth.send_transaction({"from": address, "to": BEEF, "value": value})
    receipt = w3.eth.wait_for_transaction_receipt(sent, timeout=120)
    out["minimal"] = {
        "hash": sent.to_0x_hex(), "status": receipt["status"], "type": receipt["type"], "from": receipt["from"],
    }
    vector = w3.eth.send_transaction({
        "from": address, "to": BEEF, "value": 2 * 10**15, "gas": 21000,
        "maxFeePerGas": 3 * 10**9, "maxPriorityFeePerGas": 10**9, "chainId": CHAIN,
    })
    w3.eth.wait_for_transaction_receipt(vector, timeout=120)
    out["vector"] = {"hash": vector.to_0x_hex()}
    message = "hello from web3.py"
    signature = w3.provider.make_request("personal_sign", ["0x" + message.encode().hex(), address])["result"]
    out["personal"] = {
        "signature": signature,
        "recovered": Account.recover_message(encode_defunct(text=message), signature=signature),
    }
    typed_object = w3.eth.sign_typed_data(address, ETHER_MAIL).to_0x_hex()
    typed_string = w3.provider.make_request(
        "eth_signTypedData_v4", [address.lower(), json.dumps(ETHER_MAIL)])["result"]
    out["typed"] = {
        "object": typed_object,
        "string": typed_string,
        "recovered": Account.recover_message(encode_typed_data(full_message=ETHER_MAIL), signature=typed_object),
        "recoveredString": Account.recover_message(encode_typed_data(full_message=ETHER_MAIL), signature=typed_string),
    }
    out["nodeSaw"] = node_requests(node)[before:]
    return out


def post(url, body, headers):
    data = body.encode()
    request = urllib.request.Request(url, data=data, method=headers.pop("X-Method", "POST"))
    for k, v in headers.items():
        request.add_header(k, v)
    if "Content-Type" not in headers:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return {"status": r.status, "headers": dict(r.headers), "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "headers": dict(e.headers), "body": e.read().decode()}


def ipc(path):
    w3 = Web3(IPCProvider(path, timeout=120))
    accounts = w3.eth.accounts
    signature = w3.provider.make_request("personal_sign", ["0x" + b"hello from web3.py".hex(), accounts[0]])
    return {"accounts": accounts, "personal": signature.get("result"), "chainId": w3.eth.chain_id}


def main():
    command = sys.argv[1]
    if command == "scenario":
        print(json.dumps(scenario(sys.argv[2], sys.argv[3], sys.argv[4]), default=str))
    elif command == "post":
        headers = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
        print(json.dumps(post(sys.argv[2], sys.argv[3], headers)))
    elif command == "ipc":
        print(json.dumps(ipc(sys.argv[2])))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
