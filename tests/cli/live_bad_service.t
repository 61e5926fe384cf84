cmd: backend --service exp:-1
exit: 2
stderr: --service:
