# A class's clients named for a class --class does not name.
cmd: sim proxy --class gold=0.05 --class-arrival silver=exp:10
exit: 2
stderr: --class-arrival: 'silver' is no class named by --class
