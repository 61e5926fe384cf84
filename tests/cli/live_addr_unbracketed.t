# An IPv6 address must be bracketed (its colons would be ambiguous with
# the port's): exit 2 naming the flag and the form wanted.
cmd: proxy --backend 127.0.0.1:1 --listen ::1:8080 --check
exit: 2
stderr: --listen: '::1:8080': an IPv6 address goes in brackets, as [::1]:8080
