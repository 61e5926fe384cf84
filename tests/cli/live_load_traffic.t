# Requests at a traffic model's packet times: each packet a user sends is
# a request (3 gaming users, ~43 packets/s each, half of them sent by the
# user: ~60 in 0.5 s); per session, one request per session (the gaming
# model has no on/off: one session per user, so 3). Nothing listens: all
# are errors, none lost.
cmd: fit $DATA/captures/gaming.pcap --activity gaming --out $TMP --quiet
sh: $QCTL load --target 127.0.0.1:9 --max-errors 1 --traffic $TMP/gaming.json --traffic-users 3 --duration 0.5 --json >$TMP/p.json
sh: $QCTL load --target 127.0.0.1:9 --max-errors 1 --traffic $TMP/gaming.json --traffic-users 3 --per session --duration 0.5 --json >$TMP/s.json
sh: grep -q '"arrival": "traffic:.*gaming.json (3 users, per packet)"' $TMP/p.json
sh: n=$(sed -n 's/^ *"sent": \([0-9]*\),/\1/p' $TMP/p.json); e=$(sed -n 's/^ *"errors": \([0-9]*\),/\1/p' $TMP/p.json); [ "$n" -ge 20 ] && [ "$n" -le 130 ] && [ "$n" = "$e" ]
sh: grep -q '"sent": 3,' $TMP/s.json && grep -q '"errors": 3,' $TMP/s.json
sh: $QCTL load --target 127.0.0.1:9 --max-errors 1 --traffic $TMP/nope.json --duration 1 2>$TMP/err; [ $? -eq 2 ] || [ $? -eq 1 ]; grep -q 'nope.json' $TMP/err
