# Admission flags without the admission limiter, as qctl proxy refuses them.
cmd: sim proxy --arrival exp:10 --epsilon 0.1
exit: 2
stderr: need --limiter admission
