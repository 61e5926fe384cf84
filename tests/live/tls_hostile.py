# SPDX-License-Identifier: GPL-3.0-or-later
# tls_hostile.py PORT N SEED: hostile TLS clients against a TLS listener.
# N connections each send one of: random bytes; a real ClientHello
# (made by Python's own TLS client) with random bytes changed, cut short,
# or followed by garbage; a plain HTTP request; or half a ClientHello and
# then silence. Each connection must be ended by the server (EOF or
# reset) within 8 s (the silent ones by the handshake timeout). Prints
# "ended=E hung=H" and exits 1 when any hung.
import os, random, socket, ssl, sys, time

port, n, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

def client_hello():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["http/1.1"])
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()

hello = client_hello()

def payload(kind):
    if kind == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4096))), False
    if kind == 1:
        b = bytearray(hello)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.getrandbits(8)
        return bytes(b), False
    if kind == 2:
        return hello[: rng.randint(1, len(hello) - 1)] + os.urandom(rng.randint(0, 64)), False
    if kind == 3:
        return hello + os.urandom(rng.randint(1, 2048)), False
    if kind == 4:
        return b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", False
    return hello[: len(hello) // 2], True  # then silence

ended = hung = 0
socks = []
for i in range(n):
    kind = i % 6
    data, silent = payload(kind)
    s = socket.create_connection(("127.0.0.1", port))
    try:
        s.sendall(data)
    except OSError:
        pass
    socks.append((s, kind))
deadline = time.time() + 8
for s, kind in socks:
    s.settimeout(max(0.05, deadline - time.time()))
    try:
        while s.recv(65536):
            pass
        ended += 1
    except (ConnectionResetError, BrokenPipeError):
        ended += 1
    except socket.timeout:
        hung += 1
        print("hung: kind", kind, file=sys.stderr)
    s.close()
print("ended=%d hung=%d" % (ended, hung))
sys.exit(1 if hung else 0)
