#!/usr/bin/env python3
"""Opens up to N WebSocket tabs on the bridge at once (with the token and the page's Origin), holding each, and prints
`opened K` (the upgrades that succeeded) and, for the first one refused, `refused I STATUS-LINE`; then closes them
all. The standard library only. Usage: wsstorm.py PORT TOKEN N"""
import base64, os, socket, sys

port, token, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
tabs, refused = [], None
for i in range(1, n + 1):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:%d\r\n"
               "Cookie: edgeswipe-token-%d=%s\r\n\r\n" % (port, key, port, port, token)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            break
        head += chunk
    status = head.split(b"\r\n")[0].decode(errors="replace")
    if " 101 " in status + " ":
        tabs.append(s)
    else:
        if refused is None:
            refused = "refused %d %s" % (i, status)
        s.close()
print("opened %d" % len(tabs))
if refused:
    print(refused)
for s in tabs:
    s.close()
