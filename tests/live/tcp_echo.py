# SPDX-License-Identifier: GPL-3.0-or-later
# tcp_echo.py PORTFILE [MAXFILE]: a TCP echo server (each connection's
# bytes sent back; its end of stream answered by a half-close, then the
# close), the plant of tests/live/gate_*.sh. MAXFILE, rewritten whenever
# it changes, holds the most connections open at once so far.
import os, socket, sys, threading

lock = threading.Lock()
now = peak = 0

def note(d):
    global now, peak
    with lock:
        now += d
        if now > peak:
            peak = now
            if len(sys.argv) > 2:
                with open(sys.argv[2] + '.tmp', 'w') as f:
                    f.write('%d\n' % peak)
                os.rename(sys.argv[2] + '.tmp', sys.argv[2])

def serve(c):
    note(1)
    counted = True
    try:
        while True:
            b = c.recv(65536)
            if not b:
                break
            c.sendall(b)
        # the session ends with the client's end of stream: uncounted before
        # the half-close, so that the gate, which frees the place only after
        # this half-close reaches it, cannot have its next session counted
        # first (a thread scheduled late would otherwise overlap the two)
        note(-1)
        counted = False
        c.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    finally:
        c.close()
        if counted:
            note(-1)

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0))
s.listen(512)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write('%d\n' % s.getsockname()[1])
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
