# --admin-public allows a non-loopback admin address.
cmd: proxy --backend 127.0.0.1:1 --admin 0.0.0.0:0 --admin-public --check
