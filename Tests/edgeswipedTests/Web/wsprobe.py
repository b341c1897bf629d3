#!/usr/bin/env python3
"""A minimal WebSocket client for the bridge tests: the standard library only, so that nothing is installed.

Prints the HTTP status line of the upgrade, then every text frame received, one per line, until a frame matches
--until (a JSON object with those key=value pairs), --count frames have arrived, the server closes, or --timeout.
--send lines are sent (masked, as a browser does) once the first frame has arrived; --send-hex sends raw bytes as
a text frame's payload (not necessarily UTF-8), and --unmasked sends every frame without a mask (which RFC 6455
forbids a client). A close frame from the server prints `closed CODE`.
"""
import argparse, base64, json, os, socket, struct, sys, time

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host-header")
    p.add_argument("--token")
    p.add_argument("--origin")
    p.add_argument("--send", action="append", default=[])
    p.add_argument("--send-hex", action="append", default=[])
    p.add_argument("--unmasked", action="store_true")
    p.add_argument("--until", action="append", default=[], help="key=value; stop after a frame with all of them")
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--timeout", type=float, default=20)
    a = p.parse_args()
    s = socket.create_connection(("127.0.0.1", a.port), timeout=a.timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    head = [f"GET /stream HTTP/1.1", f"Host: {a.host_header or f'127.0.0.1:{a.port}'}", "Upgrade: websocket",
            "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if a.token: head.append(f"Cookie: edgeswipe-token-{a.port}={a.token}")
    if a.origin: head.append(f"Origin: {a.origin}")
    s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk: break
        buf += chunk
    status, _, buf = buf.partition(b"\r\n\r\n")
    print(status.decode(errors="replace").split("\r\n")[0], flush=True)
    if b" 101 " not in status.split(b"\r\n")[0] + b" ":
        rest = buf
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                rest += chunk
        except OSError:
            pass
        print(f"body-bytes {len(rest)}", flush=True)
        return
    until = dict(kv.split("=", 1) for kv in a.until)
    deadline = time.monotonic() + a.timeout
    received = 0
    sent = False

    def need(n):
        nonlocal buf
        while len(buf) < n:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = s.recv(65536)
            if not chunk: raise EOFError
            buf += chunk

    try:
        while time.monotonic() < deadline:
            need(2)
            opcode = buf[0] & 0x0F
            n = buf[1] & 0x7F
            off = 2
            if n == 126:
                need(4); n = struct.unpack(">H", buf[2:4])[0]; off = 4
            elif n == 127:
                need(10); n = struct.unpack(">Q", buf[2:10])[0]; off = 10
            need(off + n)
            payload, buf = buf[off:off + n], buf[off + n:]
            if opcode == 8:
                print("closed %d" % struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else "closed", flush=True)
                return
            if opcode != 1:
                continue
            lines = payload.decode().split("\n")  # a frame carries one or more whole lines
            for text in lines:
                print(text, flush=True)
            text = lines[-1]
            received += len(lines)
            if not sent:
                sent = True
                for data in [line.encode() for line in a.send] + [bytes.fromhex(h) for h in a.send_hex]:
                    bit = 0 if a.unmasked else 0x80
                    header = bytes([0x81])
                    header += bytes([bit | len(data)]) if len(data) < 126 else bytes([bit | 126]) + struct.pack(">H", len(data))
                    if a.unmasked:
                        s.sendall(header + data)
                    else:
                        mask = os.urandom(4)
                        s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
            objs = []
            for text in lines:
                try:
                    objs.append(json.loads(text))
                except ValueError:
                    pass
            if until and any(all(str(o.get(k)) == v for k, v in until.items()) for o in objs):
                return
            if a.count and received >= a.count:
                return
    except (EOFError, socket.timeout, OSError):
        print("ended", flush=True)

main()
