# The same light loads let in whole with the adaptive settings asked for
# explicitly (--reference 0 --queue-target 0) (127.0.0.1, < 10 s).
cmd: --version
sh: sh "$DATA/../live/light.sh" --reference 0 --queue-target 0
