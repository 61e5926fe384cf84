# SPDX-License-Identifier: GPL-3.0-or-later
# echo_backend.py PORTFILE: an HTTP/1.0 server (bodies ended by the close)
# whose answer to /echo is the request's header lines (the target it
# received in X-Echo-Target), and to /headers/N a
# response with N extra header fields; the plant of tests/live/protocol.sh.
import http.server, socketserver, sys

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        if self.path.startswith('/headers/'):
            self.send_response(200)
            for i in range(int(self.path.split('/')[2])):
                self.send_header('X-H%d' % i, 'v')
            self.end_headers()
            self.wfile.write(b'many\n')
            return
        self.send_response(200)
        self.send_header('X-Echo-Target', self.path)  # the request line's target, as received
        self.end_headers()
        self.wfile.write(str(self.headers).encode())

class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

s = S(('127.0.0.1', 0), H)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write('%d\n' % s.server_address[1])
import os
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
s.serve_forever()
