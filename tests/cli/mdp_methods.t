# --method pi and --method rvi alone give the same gain; --levels forces N.
cmd: mdp removable --lambda 0.2 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --holding 0.3 --method pi --levels 40 --json
json: gain within 0.7978527 0.7978529
json: truncation.N eq 40
json: truncation.rounds eq 1
json: solver.method str pi
sh: $QCTL mdp removable --lambda 0.2 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --holding 0.3 --method rvi --levels 40 --json > $TMP/rvi.json && grep -q '"method": "rvi"' $TMP/rvi.json && ! grep -q '"pi":' $TMP/rvi.json
