cmd: proxy --backend 127.0.0.1:9 --limiter tcp
exit: 2
stderr: --limiter: unknown limiter 'tcp'
