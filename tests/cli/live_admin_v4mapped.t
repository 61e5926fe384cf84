# An IPv4-mapped IPv6 loopback address (::ffff:127.0.0.1) is loopback:
# taken without --admin-public.
cmd: proxy --backend 127.0.0.1:1 --admin '[::ffff:127.0.0.1]:0' --check
exit: 0
