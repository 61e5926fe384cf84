cmd: proxy --backend 127.0.0.1:9 --limiter tcp
exit: 2
stderr: --limiter: 'tcp' is not fixed, maxusers, aimd, vegas, gradient2, envoy or admission
