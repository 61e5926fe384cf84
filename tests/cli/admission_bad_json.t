# A malformed scenario is reported with jansson's line and column.
cmd: sim admission --scenario "$(printf '{\n  "classes": [ { "name": "a", }\n]}\n' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: s.json:2:
stderr: string or '}' expected
