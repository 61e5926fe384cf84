# An IPv4-mapped address outside 127.0.0.0/8 is not loopback: refused
# without --admin-public, naming the flag.
cmd: proxy --backend 127.0.0.1:1 --admin '[::ffff:10.0.0.1]:0' --check
exit: 2
stderr: --admin: '[::ffff:10.0.0.1]:0' is not a loopback address
