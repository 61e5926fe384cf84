#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# count_backend.py: an HTTP/1.1 backend independent of qctl that counts
# the requests in it at once. Each request is answered 200 after DELAY
# seconds (kept-alive connections served one request at a time); on
# SIGTERM it writes "requests N max_inflight M" to SUMMARY and exits.
# Usage: count_backend.py PORT_FILE SUMMARY DELAY
import asyncio
import signal
import sys

port_file, summary, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
state = {"inflight": 0, "max": 0, "requests": 0}


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length:
                await reader.readexactly(length)
            state["requests"] += 1
            state["inflight"] += 1
            state["max"] = max(state["max"], state["inflight"])
            try:
                await asyncio.sleep(delay)
            finally:
                state["inflight"] -= 1
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % port)
    import os
    os.rename(port_file + ".tmp", port_file)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    with open(summary, "w") as f:
        f.write("requests %d max_inflight %d\n" % (state["requests"], state["max"]))


asyncio.run(main())
