# SPDX-License-Identifier: GPL-3.0-or-later
# gate_client.py MODE PORT ARGS...: clients of tests/live/gate_*.sh (the
# backend behind the gate echoes, tcp_echo.py).
#   sessions PORT N HOLD   N sessions at once, each sends "hello", reads the
#                          echo, holds HOLD s, closes; prints "ok K closed M"
#                          (M: closed or reset by the gate before the echo)
#   halfclose PORT BYTES   sends BYTES, shuts its write side, reads to the end;
#                          prints the bytes echoed
#   noread PORT SECONDS    sends as fast as it can and never reads, for
#                          SECONDS; prints the bytes the gate took
#   silent PORT N SECONDS  N connections opened at once that send nothing;
#                          after SECONDS prints "closed K first A last B":
#                          K of them closed by the gate, the first and last
#                          after A and B seconds
#   burst PORT N           N connections opened and dropped at once (half of
#                          them reset), some after a few garbage bytes
import socket, struct, sys, threading, time

mode, port = sys.argv[1], int(sys.argv[2])
addr = ('127.0.0.1', port)

def session(hold, res, i):
    try:
        s = socket.create_connection(addr, timeout=8)
        s.sendall(b'hello')
        d = b''
        while len(d) < 5:
            b = s.recv(100)
            if not b:
                break
            d += b
        if d != b'hello':
            res[i] = 'closed'
            s.close()
            return
        time.sleep(hold)
        s.close()
        res[i] = 'ok'
    except OSError:
        res[i] = 'closed'

if mode == 'sessions':
    n, hold = int(sys.argv[3]), float(sys.argv[4])
    res = [None] * n
    ts = [threading.Thread(target=session, args=(hold, res, i)) for i in range(n)]
    for t in ts:
        t.start()
        time.sleep(0.01)  # in order: the gate's FIFO order is the test's
    for t in ts:
        t.join()
    print('ok %d closed %d' % (res.count('ok'), res.count('closed')))
elif mode == 'halfclose':
    n = int(sys.argv[3])
    s = socket.create_connection(addr, timeout=8)
    data = bytes(range(256)) * (n // 256) + b'x' * (n % 256)
    got = bytearray()
    def reader():
        while True:
            b = s.recv(65536)
            if not b:
                break
            got.extend(b)
    t = threading.Thread(target=reader)
    t.start()
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    t.join()
    print(len(got) if bytes(got) == data else -1)
elif mode == 'noread':
    secs = float(sys.argv[3])
    s = socket.create_connection(addr, timeout=8)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.setblocking(False)
    sent, chunk, end = 0, b'z' * 65536, time.time() + secs
    while time.time() < end:
        try:
            sent += s.send(chunk)
        except BlockingIOError:
            time.sleep(0.01)
    print(sent)
    sys.stdout.flush()
    s.close()
elif mode == 'silent':
    import select
    n, secs = int(sys.argv[3]), float(sys.argv[4])
    t0 = time.time()
    socks = []
    for i in range(n):
        socks.append(socket.create_connection(addr, timeout=8))
    open_, closed = set(socks), []
    end = t0 + secs
    while open_ and time.time() < end:
        r, _, _ = select.select(list(open_), [], [], max(0.0, end - time.time()))
        for s in r:
            try:
                b = s.recv(100)
            except OSError:
                b = b''
            if not b:
                open_.discard(s)
                closed.append(time.time() - t0)
    print('closed %d first %.2f last %.2f' % (len(closed), min(closed) if closed else -1,
                                              max(closed) if closed else -1))
    sys.stdout.flush()
    for s in socks:
        s.close()
elif mode == 'burst':
    n = int(sys.argv[3])
    socks = []
    for i in range(n):
        try:
            s = socket.create_connection(addr, timeout=2)
        except OSError:
            continue
        if i % 3 == 0:
            try:
                s.send(b'\x00\xff garbage \r\n' * 10)
            except OSError:
                pass
        if i % 2 == 0:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        socks.append(s)
    for s in socks:
        s.close()
    print(len(socks))
