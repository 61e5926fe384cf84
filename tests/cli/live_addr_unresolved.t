# A host name that does not resolve (.invalid never does, RFC 6761):
# exit 2 naming the flag, before anything is opened.
cmd: load --target no-such-host.invalid:80 --rate 1 --requests 1
exit: 2
stderr: --target: 'no-such-host.invalid:80': cannot resolve 'no-such-host.invalid'
