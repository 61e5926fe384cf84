# TLS termination: s_client's TLS 1.3 and ALPN http/1.1, TLS 1.1 refused,
# requests and wrk over HTTPS, the limiter and queue as on TCP, a reload
# with a new certificate, hostile handshakes (127.0.0.1, < 40 s).
needs: openssl curl python3
cmd: --version
sh: sh "$DATA/../live/tls.sh"
