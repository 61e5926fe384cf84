# qctl load refuses a run without a bound, naming the flags.
cmd: load --target 127.0.0.1:1 --rate 10
exit: 2
stderr: --requests N or --duration T
