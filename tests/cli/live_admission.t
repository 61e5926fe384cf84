# Multi-class admission through qctl proxy: an inadmissible candidate is
# rejected (503) and an admissible one admitted, gold within its bound
# (127.0.0.1, about 15 s).
cmd: --version
sh: sh "$DATA/../live/admission.sh"
