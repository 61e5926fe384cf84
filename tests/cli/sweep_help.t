cmd: sweep --help
stdout: usage: qctl sweep FILE
stdout: --set PATH=JSON
