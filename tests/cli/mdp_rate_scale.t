# The removable server's optimum does not depend on the time unit: the
# same model with every rate multiplied by 1e11 (switching cost 0, so the
# average cost per unit time is unchanged) has the gain of the model at
# rates near 1, 8.354912622. Ties were once judged against an absolute
# floor, and at these rates every one-step cost (about 1e-12) looked like
# a tie: policy iteration kept always-on, 8.4184.
cmd: mdp removable --lambda 156119376195.05453 --rates 155518010145.44962,182307763421.74588 --power 1.2082442219456886,2.7523639788651071 --setup-rate 2713397344944.3701 --idle-power 0.69648351310521206 --json
json: gain within 8.3549126 8.3549127
json: structure.off_when_idle true
