# SPDX-License-Identifier: GPL-3.0-or-later
# tls_client.py PORT CONNS REQS CAFILE: CONNS keep-alive HTTPS connections
# (certificate checked against CAFILE for "localhost"), REQS requests on
# each; prints "200=K other=M" with K+M = CONNS*REQS, and the protocol
# and ALPN of the first connection.
import http.client, ssl, sys

port, conns, reqs, ca = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ctx = ssl.create_default_context(cafile=ca)
ctx.set_alpn_protocols(["http/1.1"])
ok = other = 0
first = None
for c in range(conns):
    h = http.client.HTTPSConnection("localhost", port, context=ctx, timeout=10)
    for r in range(reqs):
        h.request("GET", "/c%d/r%d" % (c, r))
        resp = h.getresponse()
        resp.read()
        if resp.status == 200:
            ok += 1
        else:
            other += 1
        if first is None:
            first = (h.sock.version(), h.sock.selected_alpn_protocol())
    h.close()
print("200=%d other=%d version=%s alpn=%s" % (ok, other, first[0], first[1]))
