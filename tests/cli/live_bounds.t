# The seed's claim (i) held live under overload, and `qctl sim proxy`
# predicting it: two bounded classes at 1.5x and 4.5x the backend's
# capacity, and an inadmissible candidate (127.0.0.1, about 90 s; the
# scenario scaled 4x in time, BOUNDS_SCALE=1 for the unscaled one).
cmd: --version
sh: sh "$DATA/../live/bounds.sh"
