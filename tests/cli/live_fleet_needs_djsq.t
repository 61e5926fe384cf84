# Parking needs delay-JSQ: jsq keeps every backend on.
cmd: proxy --backend 127.0.0.1:1 --backend 127.0.0.1:2 --idle-off 5
exit: 2
stderr: need --route djsq
