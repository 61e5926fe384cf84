cmd: --version
stdout: qctl 0.
no-stderr:
