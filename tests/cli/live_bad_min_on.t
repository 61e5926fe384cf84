# qctl proxy refuses more backends kept on than it has.
cmd: proxy --backend 127.0.0.1:1 --backend 127.0.0.1:2 --route djsq --min-on 3
exit: 2
stderr: min-on: 3 is not between 1 and the 2 backends
