#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# control_model.sh: qctl control closes an integral loop only on an
# identified gain it can trust (--model, --gain-sign): a model whose gain
# interval holds 0, whose sign is not the one said, or whose sign is not
# K_I's is refused before anything runs (exit 2, the reason named, the
# actuator never called); a good model runs; a reload that flips K_I's
# sign is refused and the loop goes on. No server needed; < 15 s.
set -u
. "$(dirname "$0")/lib.sh"
# model FILE GAIN_B LO HI: y(k+1) = 0.5 y(k) + B u(k), static gain 2 B,
# with the fit's 95% interval of it [LO, HI]
model() {
    printf '{"type": "arx", "na": 1, "nb": 1, "delay": 0, "a": [-0.5], "b": [%s],
  "operating_point": {"u": 10, "y": 20}, "sample_interval": 0.2,
  "fit": {"dc_gain": {"value": 0, "se": 0, "ci95": [%s, %s]}}}\n' "$2" "$3" "$4" >"$1"
}
model "$TMP/pos.json" 0.5 0.8 1.2      # gain +1, well determined
model "$TMP/neg.json" -0.5 -1.2 -0.8   # gain -1
model "$TMP/unc.json" 0.5 -0.3 2.3     # gain +1, sign uncertain
echo 'echo "$1" >>"$(dirname "$0")/applied"' >"$TMP/act.sh"
run() { # EXPECTED-EXIT MESSAGE ARGS...
    want=$1 msg=$2; shift 2
    rm -f "$TMP/applied"
    "$QCTL" control --actuator "cmd:/bin/sh $TMP/act.sh {}" --sensor-cmd "echo 20" \
        --controller integral --reference 20 --interval 0.5 --duration 3 --setting 5 "$@" \
        >"$TMP/out" 2>"$TMP/run.err"
    rc=$?
    [ "$rc" = "$want" ] || fail "exit $rc, not $want, for $*: $(cat "$TMP/run.err")"
    [ -z "$msg" ] || grep -q -- "$msg" "$TMP/run.err" || fail "no '$msg' for $*: $(cat "$TMP/run.err")"
    if [ "$want" = 2 ] && [ -s "$TMP/applied" ]; then fail "a refused loop applied $(cat "$TMP/applied")"; fi
    return 0
}
run 0 "" --ki 0.1 --model "$TMP/pos.json"
[ "$(sort -u "$TMP/applied")" = 5 ] || fail "the trusted loop applied $(sort -u "$TMP/applied" | tr '\n' ' ')"
run 0 "" --ki -0.1 --model "$TMP/neg.json" --gain-sign negative
run 2 "K_I must have the gain's sign" --ki -0.1 --model "$TMP/pos.json"
run 2 "K_I must have the gain's sign" --ki 0.1 --model "$TMP/neg.json"
run 2 "is negative where the plant's is positive" --ki -0.1 --model "$TMP/neg.json" --gain-sign positive
run 2 "uncertain in sign (95%: -0.3 .. 2.3 holds 0)" --ki 0.1 --model "$TMP/unc.json"
run 2 "K_P must have the gain's sign" --controller pi --ki 0.1 --kp -0.2 --model "$TMP/pos.json"
run 2 "--gain-sign: only with --model" --ki 0.1 --gain-sign positive
run 2 "only with --controller integral or pi" --controller static --model "$TMP/pos.json"
# a model with no fit block (a hand-made one): its sign is still checked
run 2 "K_I must have the gain's sign" --ki -0.1 --model "$DATA/arx_model_first_order.json"
# a reload that would flip K_I's sign: refused, the loop goes on
printf '{"actuator": "cmd:/bin/sh %s/act.sh {}", "sensor-cmd": "echo 20", "controller": "integral", "reference": 20, "ki": 0.1, "model": "%s", "setting": 5, "interval": 0.5}\n' \
    "$TMP" "$TMP/pos.json" >"$TMP/c.json"
rm -f "$TMP/applied"
"$QCTL" control --config "$TMP/c.json" 2>"$TMP/r.err" &
P=$!
PIDS="$PIDS $P"
wait_file "$TMP/applied" # running, its signals installed
sed -i 's/"ki": 0.1/"ki": -0.1/' "$TMP/c.json"
kill -HUP "$P"
i=0
while ! grep -q "SIGHUP" "$TMP/r.err" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$P" || fail "a refused reload stopped qctl control"
grep -q "SIGHUP: the configuration was not taken" "$TMP/r.err" || fail "no refusal: $(cat "$TMP/r.err")"
grep -q "K_I must have the gain's sign" "$TMP/r.err" || fail "no reason: $(cat "$TMP/r.err")"
kill "$P"; wait "$P" || fail "exit status $?"
echo ok
