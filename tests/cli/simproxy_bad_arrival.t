cmd: sim proxy --arrival exp:-1
exit: 2
stderr: --arrival:
