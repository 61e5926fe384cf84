# SPDX-License-Identifier: GPL-3.0-or-later
# stuck_reader.py FIFO READY: opens FIFO for reading, shrinks its pipe to
# one page (F_SETPIPE_SZ), writes READY, and never reads: a writer to the
# FIFO then blocks as on a stuck disk, until this process is killed.
import fcntl, os, sys, time

fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
with open(sys.argv[2], "w") as f:
    f.write("ready\n")
while True:
    time.sleep(60)
