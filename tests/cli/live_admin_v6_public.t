# [::] (every address) is not loopback: refused without --admin-public.
cmd: proxy --backend 127.0.0.1:1 --admin '[::]:0' --check
exit: 2
stderr: --admin: '[::]:0' is not a loopback address
