# The admin port changes state without authentication: a non-loopback
# address is refused (exit 2, naming the flag) unless --admin-public.
cmd: proxy --backend 127.0.0.1:1 --admin 0.0.0.0:0 --check
exit: 2
stderr: --admin: '0.0.0.0:0' is not a loopback address
stderr: --admin-public
