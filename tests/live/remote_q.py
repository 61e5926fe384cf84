# SPDX-License-Identifier: GPL-3.0-or-later
# remote_q.py: the tests' own client of haproxy's runtime API, written
# apart from qctl's, to read back what qctl set.
#   remote_q.py haproxy SOCKET 'COMMAND'      the answer, as is
#   remote_q.py cell SOCKET BACKEND SERVER FIELD   one cell of show stat
#   remote_q.py cells SOCKET BACKEND SERVER   "FIELD VALUE" per column
#   remote_q.py fake SOCKET ANSWERFILE        a fake stats socket that
#       answers every connection with the file's bytes (unix socket)
import socket
import sys


def ask(path, cmd):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(3)
    s.connect(path)
    s.sendall(cmd.encode() + b"\n")
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
    return out.decode()


def row(path, px, sv):
    lines = ask(path, "show stat").split("\n")
    head = lines[0][2:].split(",")
    for ln in lines[1:]:
        cells = ln.split(",")
        if len(cells) > 1 and cells[0] == px and cells[1] == sv:
            return head, cells
    raise SystemExit("no row %s/%s" % (px, sv))


what = sys.argv[1]
if what == "haproxy":
    sys.stdout.write(ask(sys.argv[2], sys.argv[3]))
elif what == "cell":
    head, cells = row(sys.argv[2], sys.argv[3], sys.argv[4])
    print(cells[head.index(sys.argv[5])])
elif what == "cells":
    head, cells = row(sys.argv[2], sys.argv[3], sys.argv[4])
    for h, c in zip(head, cells):
        try:
            float(c)
        except ValueError:
            c = "-"  # empty or text: no value expected
        if h and h != "-":
            print(h, c)
elif what == "fake":
    data = open(sys.argv[3], "rb").read()
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(sys.argv[2])
    srv.listen(16)
    while True:
        c, _ = srv.accept()
        c.settimeout(2)
        try:
            c.recv(65536)
            c.sendall(data)
        except OSError:
            pass
        c.close()
