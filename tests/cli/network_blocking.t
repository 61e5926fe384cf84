# Blocking after service (examples/network/blocking.json): class lo, served
# at the preemptive station a, is never lost at the full station m but
# waits at a holding its server; class cl comes to m from the PS station p,
# which cannot hold it, so it is lost when m is full. b has one place and
# one server: nobody waits there, and its waiting time is exactly 0, not a
# residue of rounding. Customers blocked at a also time out there
# (timeout 2) and are preempted around; the run must simply hold together
# (the sanitizer build checks its memory).
cmd: sim network "$(cd $DATA/../../examples/network && pwd)/blocking.json" --customers 20000 --reps 3 --quiet --json
json: stations.m.lo.loss.value within 0 0
json: stations.m.cl.loss.value within 0.3 0.7
json: stations.b.all.waiting_time.value within 0 0
json: stations.a.all.timeout.value within 0.3 0.9
