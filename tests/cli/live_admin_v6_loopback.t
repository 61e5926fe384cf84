# ::1 is loopback: the admin listener takes it without --admin-public.
cmd: proxy --backend '[::1]:1' --admin '[::1]:0' --check
exit: 0
