"""A hand-written JSON-RPC client with Python's standard library only: no Accept header, no MCP framing.

Usage: plain_client.py <mcp url> <token>. Calls create_wallet (a write) and list_wallets (a read) by
name, as another team's script would, and prints what it got back as one JSON object.
"""
import json
import uuid
import sys
import urllib.request


def call(url, token, method, params, request_id):
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, data=body, method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer " + token)
    assert req.get_header("Accept") is None  # the point of the test: urllib sends no Accept header
    with urllib.request.urlopen(req, timeout=20) as res:
        return res.status, json.loads(res.read())


def main():
    url, token = sys.argv[1], sys.argv[2]
    status_w, created = call(url, token, "create_wallet", {"name": "Python cash", "type": "cash", "currency": "EUR", "idempotency_key": str(uuid.uuid4())}, 1)
    status_r, listed = call(url, token, "list_wallets", {}, 2)
    print(json.dumps({"write_status": status_w, "created": created, "read_status": status_r, "listed": listed}))


main()
