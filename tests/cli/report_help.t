# Every experiment command lists --report in its --help.
cmd: sim pool --help
stdout: --report DIR
sh: for c in "sim queue" "sim maxusers" "sim admission" "mdp removable" sysid design fit gen; do $QCTL $c --help | grep -q -- '--report DIR' || { echo "$c"; exit 1; }; done
