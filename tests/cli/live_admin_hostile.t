# The admin port bounded like the public one (16 non-reading pipelining
# clients and 16 large-body ones: < 32 MB), a token made at start, state
# changes refused from browsers (Origin, Sec-Fetch-Site, simple content
# types) and without the token, /healthz and /readyz (127.0.0.1, < 20 s).
cmd: --version
needs: curl
sh: sh "$DATA/../live/admin_hostile.sh"
