cmd: proxy --backend localhost
exit: 2
stderr: --backend: 'localhost' is not HOST:PORT
