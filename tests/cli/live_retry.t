# Retries: one of two backends killed under load, and a backend closing
# idle kept-alive links after 5 ms: no request answered 502, every one
# counted (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/retry.sh"
