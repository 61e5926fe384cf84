# --limiter aimd refuses under 0.1% of 256 and of 32 closed-loop clients in
# front of a backend that answers at once (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/fast_backend.sh" --limiter aimd
