cmd: frob
exit: 2
stderr: unknown command 'frob'
