# An IPv6 address without its closing bracket: exit 2 naming the flag.
cmd: proxy --backend '[::1:8080' --check
exit: 2
stderr: --backend: '[::1:8080' is not [IPv6]:PORT
