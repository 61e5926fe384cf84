# qctl proxy names a routing rule it does not know.
cmd: proxy --backend 127.0.0.1:1 --route random
exit: 2
stderr: --route: 'random' is not jsq or djsq
