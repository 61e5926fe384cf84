cmd: proxy --help
stdout: usage: qctl proxy --backend HOST:PORT
stdout: Retry-After
