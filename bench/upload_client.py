#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# upload_client.py: N concurrent uploads of SIZE bytes (one POST each, its
# own connection, Content-Length framing) to HOST:PORT, each response read
# whole and checked: its status line, its framing (Content-Length or
# chunked) and its body length. Prints one JSON object: counts by status,
# failures of the client itself (connect, reset, short answer, timeout)
# apart, and the slowest upload. asyncio alone: no third-party package.
#   upload_client.py HOST PORT [N] [SIZE] [TIMEOUT]
import asyncio
import json
import os
import sys
import time


async def read_response(r):
    head = await r.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdr = {}
    for ln in lines[1:]:
        if ":" in ln:
            k, v = ln.split(":", 1)
            hdr[k.strip().lower()] = v.strip()
    if "content-length" in hdr:
        await r.readexactly(int(hdr["content-length"]))
    elif hdr.get("transfer-encoding", "").lower() == "chunked":
        while True:
            n = int((await r.readuntil(b"\r\n")).split(b";")[0], 16)
            await r.readexactly(n + 2)
            if n == 0:
                break
    return status


async def one(host, port, body, timeout):
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except Exception as e:
        return ("connect", repr(e), time.monotonic() - t0)
    try:
        w.write(b"POST /up HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n"
                b"Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
                % (host.encode(), len(body)))
        # the answer may come before the body is all sent (a refusal): read
        # it concurrently, as a client that sends and listens at once
        async def send():
            step = 1 << 16
            try:
                for i in range(0, len(body), step):
                    w.write(body[i:i + step])
                    await w.drain()
            except (ConnectionError, OSError):
                pass  # the server closed after its answer: read below
        sender = asyncio.ensure_future(send())
        status = await asyncio.wait_for(read_response(r), timeout)
        sender.cancel()
        return (status, None, time.monotonic() - t0)
    except asyncio.TimeoutError:
        return ("timeout", None, time.monotonic() - t0)
    except Exception as e:
        return ("broken", repr(e), time.monotonic() - t0)
    finally:
        w.close()


async def main():
    host, port = sys.argv[1], int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 8 << 20
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 60
    body = os.urandom(size)
    res = await asyncio.gather(*(one(host, port, body, timeout) for _ in range(n)))
    by = {}
    for st, _, _ in res:
        by[str(st)] = by.get(str(st), 0) + 1
    ok = sum(v for k, v in by.items() if k.isdigit() and 200 <= int(k) < 300)
    errs = sorted({e for _, e, _ in res if e})[:3]
    print(json.dumps({"uploads": n, "size": size, "ok": ok, "refused_503": by.get("503", 0),
                      "by_status": by, "errors": errs,
                      "slowest": round(max(t for _, _, t in res), 3)}))


asyncio.run(main())
