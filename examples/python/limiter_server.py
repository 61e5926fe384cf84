#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""limiter_server.py: qctl's embeddable concurrency limiter
(qctl.control.Limiter, the C limiter of qctl/limiter.h) in a threaded
Python HTTP server.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/limiter_server.py [SECONDS]

The server answers each request after 100 ms of "work"; a request the
limiter refuses gets 503 at once. A control thread ticks the limiter
every 0.5 s with the MaxUsers law (reference: 4 requests in the server,
measured as the logged in-flight of the interval). Sixteen client
threads hammer it for SECONDS (default 6); the example prints the limit
and the in-flight measure at each tick, then the totals.
"""
import http.client
import http.server
import sys
import threading
import time

import qctl

lim = qctl.control.Limiter("maxusers", now=time.monotonic(), initial_limit=16, min_limit=1,
                           max_limit=64, reference=4, ki=0.5)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        tok = lim.acquire()
        if tok is None:
            self.send_response(503)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        t0 = time.monotonic()
        try:
            time.sleep(0.1)  # the work
            body = b"ok\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        finally:
            lim.release(tok, time.monotonic() - t0)

    def log_message(self, *args):
        pass


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    stop = threading.Event()
    counts = {200: 0, 503: 0}
    lock = threading.Lock()

    def client():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        while not stop.is_set():
            c.request("GET", "/")
            r = c.getresponse()
            r.read()
            with lock:
                counts[r.status] = counts.get(r.status, 0) + 1
            if r.status == 503:
                time.sleep(0.005)

    clients = [threading.Thread(target=client, daemon=True) for _ in range(16)]
    for t in clients:
        t.start()
    print("%6s  %6s  %10s" % ("time", "limit", "in flight"))
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        time.sleep(0.5)
        lim.tick(time.monotonic())
        s = lim.stats()
        print("%6.1f  %6d  %10.2f" % (seconds - (t_end - time.monotonic()), s["gate"],
                                      s["last_y"]))
    stop.set()
    for t in clients:
        t.join()
    srv.shutdown()
    s = lim.stats()
    print("\nanswered %d (200) and %d (503); limiter admitted %d, refused %d; "
          "in flight now %d" % (counts.get(200, 0), counts.get(503, 0), s["admitted"],
                                s["refused"], s["inflight"]))


if __name__ == "__main__":
    main()
