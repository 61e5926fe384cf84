cmd: sim maxusers --think exp:0
exit: 2
stderr: --think
