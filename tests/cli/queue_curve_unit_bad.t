# --curve-unit on a renewal process, or an unknown unit: refused.
cmd: sim queue --arrival exp:1 --service exp:2 --curve-unit h
exit: 2
stderr: --curve-unit: time unit: only a curve:, steps: or sin:
