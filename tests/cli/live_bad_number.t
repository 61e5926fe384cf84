cmd: load --target 127.0.0.1:1 --rate 10x --requests 5
exit: 2
stderr: --rate
