# qctl control: --config read again on SIGHUP (taken, refused, bumpless)
# and the drain's --final (tests/live/control_reload.sh; < 15 s).
needs: curl
cmd: --version
sh: sh "$DATA/../live/control_reload.sh"
