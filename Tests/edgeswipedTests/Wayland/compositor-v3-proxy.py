#!/usr/bin/python3
"""A Wayland proxy for the session's tests: listens on $XDG_RUNTIME_DIR/OURS, forwards every client to the
compositor at $XDG_RUNTIME_DIR/UPSTREAM (bytes and passed descriptors both ways), and announces wl_compositor at
version 3 at most, as an older compositor would: wl_surface.damage_buffer (version 4) is then a request the client
must not send. Prints "ready" once it listens. Usage: compositor-v3-proxy.py UPSTREAM OURS"""
import array, os, selectors, socket, struct, sys

runtime = os.environ["XDG_RUNTIME_DIR"]
upstream_path, our_path = (os.path.join(runtime, name) for name in sys.argv[1:3])
if os.path.exists(our_path):
    os.unlink(our_path)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(our_path)
listener.listen(16)
selector = selectors.DefaultSelector()
selector.register(listener, selectors.EVENT_READ, None)
MAX_FDS = 28


class Link:
    """One client and its upstream connection; what each side sent that is not yet a whole message."""

    def __init__(self, client, server):
        self.client, self.server = client, server
        self.from_client, self.from_server = b"", b""
        self.registries = set()


def messages(pending):
    """Whole messages at the front of `pending`, and what is left."""
    out = []
    while len(pending) >= 8:
        size = struct.unpack_from("<I", pending, 4)[0] >> 16
        if size < 8 or len(pending) < size:
            break
        out.append(bytearray(pending[:size]))
        pending = pending[size:]
    return out, pending


def client_to_server(link, data):
    whole, link.from_client = messages(link.from_client + data)
    for m in whole:
        sender, opcode = struct.unpack_from("<II", m, 0)
        if sender == 1 and opcode & 0xFFFF == 1:  # wl_display.get_registry(new_id)
            link.registries.add(struct.unpack_from("<I", m, 8)[0])
    return b"".join(whole)


def server_to_client(link, data):
    whole, link.from_server = messages(link.from_server + data)
    for m in whole:
        sender, opcode = struct.unpack_from("<II", m, 0)
        if sender in link.registries and opcode & 0xFFFF == 0:  # wl_registry.global(name, interface, version)
            length = struct.unpack_from("<I", m, 12)[0]
            interface = bytes(m[16:16 + length - 1])
            at = 16 + (length + 3) // 4 * 4
            if interface == b"wl_compositor" and struct.unpack_from("<I", m, at)[0] > 3:
                struct.pack_into("<I", m, at, 3)
    return b"".join(whole)


def forward(source, target, link, rewrite):
    fds = array.array("i")
    data, ancillary, _, _ = source.recvmsg(1 << 16, socket.CMSG_SPACE(MAX_FDS * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    if not data:
        return False
    out = rewrite(link, data)
    target.sendmsg([out], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)] if fds else [])
    for fd in fds:
        os.close(fd)
    return True


print("ready", flush=True)
while True:
    for key, _ in selector.select():
        if key.data is None:
            client, _ = listener.accept()
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.connect(upstream_path)
            link = Link(client, server)
            selector.register(client, selectors.EVENT_READ, (link, True))
            selector.register(server, selectors.EVENT_READ, (link, False))
            continue
        link, from_client = key.data
        try:
            alive = forward(link.client, link.server, link, client_to_server) if from_client else forward(link.server, link.client, link, server_to_client)
        except OSError:
            alive = False
        if not alive:
            for s in (link.client, link.server):
                selector.unregister(s)
                s.close()
