cmd: sim maxusers --reference 2000
exit: 2
stderr: not reachable
