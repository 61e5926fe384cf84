# SPDX-License-Identifier: GPL-3.0-or-later
# alog_client.py PORT N [PAUSE_AT FLAG]: N GET requests one after another
# on one keep-alive connection (http.client), each read whole; with
# PAUSE_AT, after that many requests it writes FLAG and waits until FLAG
# is removed (the test rotates the log meanwhile). Prints the statuses'
# counts as "200=K ...".
import http.client, os, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
pause_at = int(sys.argv[3]) if len(sys.argv) > 3 else -1
flag = sys.argv[4] if len(sys.argv) > 4 else None
c = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
counts = {}
for i in range(n):
    if i == pause_at:
        with open(flag, 'w') as f:
            f.write('%d\n' % i)
        t = time.time()
        while os.path.exists(flag) and time.time() - t < 10:
            time.sleep(0.02)
    c.request('GET', '/n/%d' % i, headers={'User-Agent': 'alog-client'})
    r = c.getresponse()
    r.read()
    counts[r.status] = counts.get(r.status, 0) + 1
print(' '.join('%d=%d' % kv for kv in sorted(counts.items())))
