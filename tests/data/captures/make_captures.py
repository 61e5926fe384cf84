#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# make_captures.py: records the small loopback captures the traffic tests use.
#
# Everything runs on 127.0.0.1 (servers bind there only) while tcpdump
# records the loopback interface with a filter on the scenario's ports.
# Captures keep headers only (snaplen 128): the reader takes a packet's
# size from the IP length field, so sizes stay true while files stay small.
#   web.pcap     page loads from a local HTTP server (python3 http.server):
#                an HTML page and 3-6 objects per page, each object on its
#                own connection, think times between pages
#   video.pcap   a TCP stream paced in bursts (frames of 1400-byte writes)
#   gaming.pcap  a UDP game-like exchange: client inputs at ~30 Hz, server
#                state updates at 20 Hz
#   gaming_sll.pcap, gaming_sll2.pcap: a short UDP exchange recorded on the
#                "any" device (Linux cooked headers v1 and v2)
#   gaming.pcapng the first 300 packets of gaming.pcap as pcapng (editcap,
#                from the wireshark tools, when installed)
# The broken captures are derived from web.pcap by make_broken() below.
# Run as root from this directory: python3 make_captures.py
import os, random, socket, struct, subprocess, sys, threading, time, http.server, functools

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20240601)


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def record(name, filt, fn, iface="lo", linktype=None):
    out = os.path.join(HERE, name)
    cmd = ["tcpdump", "-i", iface, "-s", "128", "-Z", "root", "-U", "-w", out]
    if linktype:
        cmd += ["-y", linktype]
    cmd += [filt]
    td = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    try:
        fn()
    finally:
        time.sleep(0.5)
        td.terminate()
        td.wait(timeout=10)
    print(name, os.path.getsize(out), "bytes")


def web():
    root = os.path.join("/tmp", "qctl_web_root")
    os.makedirs(root, exist_ok=True)
    for i in range(12):
        with open(os.path.join(root, "obj%d" % i), "wb") as f:
            f.write(os.urandom(rng.randint(1500, 30000)))
    port = free_port(socket.SOCK_STREAM)
    class Handler(http.server.SimpleHTTPRequestHandler):
        # Writes in MSS-sized pieces without delay, as a server behind a
        # 1500-byte MTU would send them (loopback would otherwise carry
        # 64 KB super-segments).
        def copyfile(self, src, dst):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                b = src.read(1388)
                if not b:
                    break
                dst.write(b)
                dst.flush()
                time.sleep(0.0002)

        def log_message(self, *a):
            pass

    handler = functools.partial(Handler, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()

    def get(path):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
        c.settimeout(5)
        c.connect(("127.0.0.1", port))
        c.sendall(("GET /%s HTTP/1.0\r\nHost: localhost\r\n\r\n" % path).encode())
        while c.recv(2048):
            pass
        c.close()

    def run():
        for page in range(8):
            get("obj%d" % rng.randrange(12))
            for k in range(rng.randint(3, 6)):
                get("obj%d" % rng.randrange(12))
                time.sleep(rng.uniform(0.0, 0.03))
            time.sleep(rng.uniform(0.3, 1.5))

    record("web.pcap", "tcp port %d" % port, run)
    srv.shutdown()


def video():
    port = free_port(socket.SOCK_STREAM)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(1)

    def serve():
        conn, _ = ls.accept()
        conn.recv(2048)  # the request: unread data would make close() send RST
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        chunk = os.urandom(1400)
        t_end = time.time() + 6.0
        while time.time() < t_end:  # frames every 100 ms, bigger every 10th
            frame = 40 if rng.random() < 0.1 else rng.randint(4, 12)
            for _ in range(frame):
                conn.send(chunk[: rng.choice((1400, 1400, 1400, rng.randint(200, 1400)))])
                time.sleep(0.0005)
            time.sleep(0.1)
        conn.shutdown(socket.SHUT_WR)
        conn.recv(16)
        conn.close()

    def run():
        th = threading.Thread(target=serve, daemon=True)
        th.start()
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
        c.connect(("127.0.0.1", port))
        c.sendall(b"GET /stream HTTP/1.0\r\n\r\n")
        while c.recv(65536):
            pass
        c.close()
        th.join()

    record("video.pcap", "tcp port %d" % port, run)
    ls.close()


def udp_game(seconds, client_hz, server_hz):
    port = free_port(socket.SOCK_DGRAM)
    srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    srv.bind(("127.0.0.1", port))
    srv.settimeout(0.2)
    stop = time.time() + seconds + 1.5

    def serve():
        peer = None
        nxt = time.time()
        while time.time() < stop:
            try:
                _, peer = srv.recvfrom(2048)
            except socket.timeout:
                pass
            if peer and time.time() >= nxt:
                srv.sendto(os.urandom(rng.randint(90, 320)), peer)
                nxt = time.time() + rng.gauss(1.0 / server_hz, 0.004)

    def run():
        th = threading.Thread(target=serve, daemon=True)
        th.start()
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        t_end = time.time() + seconds
        while time.time() < t_end:
            c.sendto(os.urandom(rng.randint(40, 110)), ("127.0.0.1", port))
            time.sleep(max(0.0, rng.gauss(1.0 / client_hz, 0.006)))
        th.join()
        c.close()
        srv.close()

    return port, run


def gaming():
    port, run = udp_game(20, 30, 20)
    record("gaming.pcap", "udp port %d" % port, run)


def cooked():
    for name, lt in (("gaming_sll.pcap", "LINUX_SLL"), ("gaming_sll2.pcap", "LINUX_SLL2")):
        port, run = udp_game(1.5, 30, 20)
        record(name, "udp port %d" % port, run, iface="any", linktype=lt)


def pcapng():
    subprocess.run(["editcap", "-F", "pcapng", "-r", os.path.join(HERE, "gaming.pcap"),
                    os.path.join(HERE, "gaming.pcapng"), "1-300"], check=True)
    print("gaming.pcapng", os.path.getsize(os.path.join(HERE, "gaming.pcapng")), "bytes")


def make_broken():
    src = open(os.path.join(HERE, "web.pcap"), "rb").read()
    # truncated: the file cut in the middle of a record (header + 40 packets + 7 bytes)
    off, n = 24, 0
    while n < 40:
        incl = struct.unpack("<I", src[off + 8: off + 12])[0]
        off += 16 + incl
        n += 1
    open(os.path.join(HERE, "bad_truncated.pcap"), "wb").write(src[: off + 7])
    open(os.path.join(HERE, "bad_magic.pcap"), "wb").write(b"\x00\x01\x02\x03" + src[4:2000])
    off, n = 24, 0
    while n < 30:  # 30 whole records: only the header's snaplen is wrong
        incl = struct.unpack("<I", src[off + 8: off + 12])[0]
        off += 16 + incl
        n += 1
    snap0 = bytearray(src[:off])
    snap0[16:20] = b"\x00\x00\x00\x00"
    open(os.path.join(HERE, "bad_snaplen0.pcap"), "wb").write(bytes(snap0))
    open(os.path.join(HERE, "bad_empty.pcap"), "wb").write(src[:24])


if __name__ == "__main__":
    which = sys.argv[1:] or ["web", "video", "gaming", "cooked", "pcapng", "broken"]
    for w in which:
        {"web": web, "video": video, "gaming": gaming, "cooked": cooked, "pcapng": pcapng, "broken": make_broken}[w]()
