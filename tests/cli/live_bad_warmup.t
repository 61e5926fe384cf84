# qctl backend names a bad warm-up distribution.
cmd: backend --warmup det:-1
exit: 2
stderr: --warmup:
