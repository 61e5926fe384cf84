cmd: sim queue --arrival exp:1 --service exp:2 --customers 12x
exit: 2
stderr: --customers: '12x' is not a number (bad character 'x' at column 3)
