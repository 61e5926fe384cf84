# SPDX-License-Identifier: GPL-3.0-or-later
# sink_backend.py PORTFILE [RATE]: an HTTP/1.1 server that reads each
# request's body (Content-Length or chunked) at most RATE bytes a second
# (default: as fast as it comes) and answers "LENGTH SHA256\n" of the body
# it read; the plant of tests/live/upload.sh (a slow reader shows whether
# the proxy holds a body back or buffers it).
import hashlib, os, socket, sys, threading, time

RATE = float(sys.argv[2]) if len(sys.argv) > 2 else 0


class Conn:
    def __init__(self, s):
        self.s, self.buf = s, b''
        self.t0, self.got = time.monotonic(), 0

    def fill(self, n=262144):
        d = self.s.recv(n)
        if not d:
            raise EOFError
        self.buf += d
        if RATE:  # a token bucket: never ahead of RATE since the connection began
            self.got += len(d)
            ahead = self.t0 + self.got / RATE - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)

    def line(self):
        while b'\r\n' not in self.buf:
            self.fill()
        l, self.buf = self.buf.split(b'\r\n', 1)
        return l

    def take(self, n, h):
        while n:
            if not self.buf:
                self.fill()
            k = min(n, len(self.buf))
            h.update(self.buf[:k])
            self.buf = self.buf[k:]
            n -= k
        return


def serve(s):
    c = Conn(s)
    try:
        while True:
            c.line()  # request line
            hdr = {}
            while True:
                l = c.line()
                if not l:
                    break
                k, v = l.split(b':', 1)
                hdr[k.strip().lower()] = v.strip()
            h, n = hashlib.sha256(), 0
            if hdr.get(b'transfer-encoding', b'').lower() == b'chunked':
                while True:
                    size = int(c.line().split(b';')[0], 16)
                    if size == 0:
                        while c.line():
                            pass
                        break
                    c.take(size, h)
                    n += size
                    c.line()
            else:
                n = int(hdr.get(b'content-length', b'0'))
                c.take(n, h)
            body = b'%d %s\n' % (n, h.hexdigest().encode())
            s.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
    except (EOFError, OSError, ValueError):
        pass
    s.close()


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(('127.0.0.1', 0))
ls.listen(64)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write('%d\n' % ls.getsockname()[1])
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
while True:
    a, _ = ls.accept()
    threading.Thread(target=serve, args=(a,), daemon=True).start()
