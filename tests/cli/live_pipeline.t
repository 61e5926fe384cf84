# Pipelined bursts (3000 requests in one write) on the admin and the public
# port, answered one by one without recursion; GET on a state change: 405; 16 clients that never read
# leave the proxy's memory bounded (127.0.0.1, < 30 s).
cmd: --version
sh: sh "$DATA/../live/pipeline.sh"
