# A malformed network is reported with jansson's line and column, exit 2.
cmd: sim network "$(printf '{\n  "stations": [ {"name": "a",}\n]}\n' > $TMP/n.json; echo $TMP/n.json)" --quiet
exit: 2
stderr: n.json:2:
