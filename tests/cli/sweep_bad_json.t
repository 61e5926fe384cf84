# A truncated sweep file is reported with jansson's line and column.
cmd: sweep --results $TMP/r "$(printf '{\n  "experiment": "sim queue",\n  "params": {"load": [0.5,\n' > $TMP/s.json; echo $TMP/s.json)"
exit: 2
stderr: s.json:4:
stderr: expected near end of file
sh: test ! -e $TMP/r.journal
