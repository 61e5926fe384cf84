# qctl load --dump: one line per request (class, send time, latency,
# status) over two threads, matching the JSON summary's counts and mean;
# an unwritable dump exits 2 (127.0.0.1, about 3 s).
cmd: --version
sh: sh "$DATA/../live/load_dump.sh"
