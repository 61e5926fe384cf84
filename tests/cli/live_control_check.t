# qctl control --check prints the effective configuration, which loads back.
cmd: control --actuator "haproxy-maxconn:/run/h.sock:b/s1" --sensor "haproxy:/run/h.sock:b:qcur+scur" --controller integral --reference 12 --ki -0.1 --check
stdout: "controller": "integral"
stdout: "sensor": "haproxy:/run/h.sock:b:qcur+scur"
