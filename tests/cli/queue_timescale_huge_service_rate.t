# Issue 34: --arrival exp:1 --service exp:1e300 printed a response time of 0, negative waiting
# times, inverted intervals or nan. Simulated time cannot resolve the
# shorter time scale over the run's span: refused up front (exit 2) with
# the reason, nothing printed on stdout.
cmd: sim queue --arrival exp:1 --service exp:1e300 --quiet
exit: 2
stderr: time scale: the run spans about
stderr: waiting and response times would lose their digits
sh: [ ! -s "$TMP/stdout" ]
